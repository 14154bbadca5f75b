package bench

import (
	"fmt"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// queueTimeMetric times every controller event's wait in the loop's queue.
const queueTimeMetric = "kafka_controller_ControllerEventManager_EventQueueTimeMs"

// phaseTotals sums kzadmind's create-path timers: each histogram or
// counter series by name and labels, its sum and count.
type phaseTotals map[string][2]float64

// readPhases gathers the create-round phases, the rounds by read, and the
// controller's topic-change timer.
func readPhases(g prometheus.Gatherer) phaseTotals {
	out := phaseTotals{}
	families, err := g.Gather()
	if err != nil {
		return out
	}
	for _, f := range families {
		name := f.GetName()
		if !strings.HasPrefix(name, "kzadmin_create_round") && name != "kafka_controller_ControllerStats_TopicChangeRateAndTimeMs" &&
			name != queueTimeMetric {
			continue
		}
		for _, m := range f.GetMetric() {
			key := name
			for _, l := range m.GetLabel() {
				key += "{" + l.GetValue() + "}"
			}
			switch {
			case m.GetHistogram() != nil:
				out[key] = [2]float64{m.GetHistogram().GetSampleSum(), float64(m.GetHistogram().GetSampleCount())}
			case m.GetCounter() != nil:
				out[key] = [2]float64{0, m.GetCounter().GetValue()}
			}
		}
	}
	return out
}

// since describes what happened between before and t: the rounds, and the
// mean time of each phase, in milliseconds.
func (t phaseTotals) since(before phaseTotals) string {
	delta := func(key string) (sum, count float64) {
		return t[key][0] - before[key][0], t[key][1] - before[key][1]
	}
	mean := func(key string, scale float64) string {
		sum, n := delta(key)
		if n == 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f ms", scale*sum/n)
	}
	_, fresh := delta("kzadmin_create_round_total{fresh}")
	_, pre := delta("kzadmin_create_round_total{preread}")
	_, events := delta("kafka_controller_ControllerStats_TopicChangeRateAndTimeMs")
	parts := []string{fmt.Sprintf("%.0f create rounds (%.0f on a pre-read)", fresh+pre, pre)}
	var phases []string
	for _, p := range []string{"read", "plan", "commit"} {
		phases = append(phases, p+" "+mean("kzadmin_create_round_phase_seconds{"+p+"}", 1000))
	}
	_, queued := delta(queueTimeMetric)
	parts = append(parts, "mean "+strings.Join(phases, ", "),
		fmt.Sprintf("%.0f controller topic-change events, mean %s", events,
			mean("kafka_controller_ControllerStats_TopicChangeRateAndTimeMs", 1)),
		fmt.Sprintf("%.0f controller events of all kinds, mean wait in its queue %s", queued, mean(queueTimeMetric, 1)))
	return strings.Join(parts, "; ")
}
