package zkadmin

import (
	"context"
	"errors"
	"slices"

	"github.com/kzadmin/kzadmin/znodes"
)

// minPipelinedOps is the fewest ops chunkCreates puts in a multi to have
// more of them to pipeline.
const minPipelinedOps = 120

// createRoundsPath holds the markers of create rounds in progress
// (createChain). It is kzadmin's own, as /kzadmin/controllers is.
const createRoundsPath = "/kzadmin/create-rounds"

// createChainOps is a round's multis, ready to send, and the marker
// chaining them ("" for a single multi).
type createChainOps struct {
	ops    [][]Op
	marker string
}

// createChain builds the multis of a round's chunks so that each lands
// only if every one before it did, and no other writer moved the fence in
// between; they can then be sent without waiting for each answer.
//
// Each multi sets /brokers/topics at the version the one before it leaves,
// which stops it when another writer's fenced write came in between. That
// alone does not stop it after a failed predecessor: the version would
// then be one short, and a foreign write could make up the difference and
// pass for ours. So the first multi also creates an ephemeral marker with
// a name of this round's own, each later one bumps the marker at the
// version its predecessor left, and the last deletes it: a failed multi
// leaves the marker's version short, or the marker missing, for every one
// after it, whatever other writers do. A marker a failed round leaves is
// deleted, or goes with the session.
func (a *Admin) createChain(ctx context.Context, c *Cluster, plan createPlan, chunks [][]*pendingTopic) (createChainOps, error) {
	var chain createChainOps
	version := c.TopicsVersion // the version the multi before the next one leaves
	if !c.TopicsExist {
		version = -1
	}
	if len(chunks) > 1 {
		id, err := znodes.NewTopicID(a.opts.TopicIDs)
		if err != nil {
			return chain, err
		}
		chain.marker = createRoundsPath + "/" + id.String()
	}
	for i, chunk := range chunks {
		var ops []Op
		if i == 0 {
			ops = slices.Concat(plan.fence, plan.parents)
			if chain.marker != "" {
				if !a.markerParentKnown.Load() {
					parents, err := a.createPathOps(ctx, createRoundsPath)
					if err != nil {
						return chain, err
					}
					ops = append(ops, parents...)
				}
				ops = append(ops, CreateOp(chain.marker, nil, Ephemeral))
			}
		} else {
			ops = []Op{SetOp(znodes.TopicsPath, nil, version)}
			if c.BrokerDefaultsVersion >= 0 {
				ops = append(ops, CheckOp(znodes.ConfigEntityPath(znodes.EntityBrokers, znodes.DefaultEntityName),
					c.BrokerDefaultsVersion))
			}
			if i < len(chunks)-1 {
				ops = append(ops, SetOp(chain.marker, nil, int32(i-1)))
			} else {
				ops = append(ops, DeleteOp(chain.marker, int32(i-1)))
			}
		}
		version++
		for _, p := range chunk {
			ops = append(ops, p.ops...)
		}
		chain.ops = append(chain.ops, dedupeCreates(ops))
	}
	return chain, nil
}

// dropChainMarker deletes the marker of a round whose chain broke, if it
// is left (best effort: it is ephemeral).
func (a *Admin) dropChainMarker(ctx context.Context, marker string) {
	if marker == "" {
		return
	}
	if err := a.zk.Delete(ctx, marker, AnyVersion); err != nil && !errors.Is(err, ErrNoNode) {
		a.opts.Logger.Debug().Err(err).Str("marker", marker).Msg("could not delete a create round's marker")
	}
}

// fenceSaw reports whether a create multi's fence, its first op, the
// SetData of /brokers/topics, saw the children version cversion (ZooKeeper
// answers each op of a multi with the stat as of that op, so before the
// multi's own creates).
func fenceSaw(ops []Op, res []OpResult, cversion int32) bool {
	return len(ops) > 0 && len(res) > 0 && ops[0].Kind == OpSet && ops[0].Path == znodes.TopicsPath &&
		res[0].Err == nil && res[0].Stat.Cversion == cversion
}

// chunkCreates cuts the plan's topics into runs of whole topics whose
// multi stays within DefaultBatchOps ops and DefaultBatchBytes bytes, the
// fence included, and, with a Committer, what it appends (committerOps,
// committerSize). Smaller multis sent several at a time are what
// ZooKeeper writes fastest (see doc.go), so this also counts the
// Committer's ops.
// A topic too large for that goes alone.
func (a *Admin) chunkCreates(plan createPlan) [][]*pendingTopic {
	// Room for the chain's ops too: the marker, and the creation of its
	// parents or the marker op of a later multi (createChain).
	markerOp := a.zk.opSize(CreateOp(createRoundsPath+"/"+znodes.UUID{}.String(), nil, Ephemeral))
	fenceOps, fenceSize := 3, multiOverhead+3*markerOp
	for _, o := range slices.Concat(plan.fence, plan.parents) {
		fenceOps++
		fenceSize += a.zk.opSize(o)
	}
	// A round large enough is cut into at least DefaultBatchInFlight
	// multis, so that they are written pipelined, but none smaller than
	// minPipelinedOps, below which ZooKeeper writes a multi's znodes
	// slowest.
	total := 0
	for _, p := range plan.topics {
		total += len(p.ops) + a.committerOps(p)
	}
	maxOps := min(DefaultBatchOps, max(minPipelinedOps, (total+DefaultBatchInFlight-1)/DefaultBatchInFlight))
	var chunks [][]*pendingTopic
	var cur []*pendingTopic
	nOps, size := fenceOps, fenceSize
	for _, p := range plan.topics {
		pOps, pSize := len(p.ops)+a.committerOps(p), a.committerSize(p)
		for _, o := range p.ops {
			pSize += a.zk.opSize(o)
		}
		if len(cur) > 0 && (nOps+pOps > maxOps || size+pSize > DefaultBatchBytes) {
			chunks = append(chunks, cur)
			cur, nOps, size = nil, fenceOps, fenceSize
		}
		cur = append(cur, p)
		nOps += pOps
		size += pSize
	}
	if len(cur) > 0 {
		chunks = append(chunks, cur)
	}
	return chunks
}
