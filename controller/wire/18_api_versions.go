package wire

// ApiVersions (key 18), answered by the server itself.
//
// Behavior:
//   - ApiKeys lists what the Mux has registered plus ApiVersions v0-4,
//     sorted by key; ErrorCode 0; ThrottleMillis 0.
//   - A version outside 0-4 is not decoded: the answer is a v0 body with
//     UNSUPPORTED_VERSION (35) and ApiKeys [{18, 0, 4}] only, as Kafka's
//     ApiVersionsRequest.getErrorResponse builds it. Clients read the 4 and
//     retry with it (kgo starts at v5, Java at its latest). The connection
//     stays open.
//   - v3+ ClientSoftwareName and ClientSoftwareVersion must match
//     [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?; otherwise the answer is
//     INVALID_REQUEST (42) with no ApiKeys, at the request's version.
//   - The KIP-584 feature fields (v3+ tags) come from Config.Features;
//     by default none, with FinalizedFeaturesEpoch -1. kzadmind fills
//     them from /feature, as a ZooKeeper-mode broker does.
//   - An undecodable body closes the connection, as for any request.
//
// Version notes:
//   - The response header is always v0, even for the flexible v3+ bodies
//     (KIP-511): a client must be able to read the answer to a version it
//     guessed.
//   - v4 (Kafka 3.9, KAFKA-17011) only changes SupportedFeatures: v0-3
//     leave out features whose MinVersion is 0, which older clients could
//     not parse; v4 lists them.

import (
	"slices"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// serveApiVersions answers an ApiVersions request; see the file comment.
func (s *Server) serveApiVersions(c *conn, h header, rest []byte) ([]byte, bool) {
	resp, ok := s.apiVersions(c, h, rest)
	if !ok {
		return nil, false
	}
	return appendResponse(nil, h.correlationID, false, resp), true
}

// apiVersions builds the answer to an ApiVersions request; false means the
// connection must close instead.
func (s *Server) apiVersions(c *conn, h header, rest []byte) (*kmsg.ApiVersionsResponse, bool) {
	req := kmsg.NewPtrApiVersionsRequest()
	req.SetVersion(h.version)
	// An unsupported version's header is still parsed by its own version's
	// rules (v2 from v3 on), as Kafka does, so the client id is read right.
	body, err := parseHeaderRest(&h, rest, requestHeaderVersion(h.key, h.version, req.IsFlexible()))
	if err != nil {
		withHeader(c.log.Info(), h).Err(err).Msg("closing connection: bad request header")
		return nil, false
	}
	resp := req.ResponseKind().(*kmsg.ApiVersionsResponse)
	switch {
	case h.version < 0 || h.version > apiVersionsMax:
		resp.SetVersion(0)
		resp.ErrorCode = kerr.UnsupportedVersion.Code
		resp.ApiKeys = []kmsg.ApiVersionsResponseApiKey{apiKeyEntry(VersionRange{Key: apiVersionsKey, Max: apiVersionsMax})}
		withHeader(c.log.Debug(), h).Msg("ApiVersions version unsupported; answering v0")
	case req.ReadFrom(body) != nil:
		withHeader(c.log.Info(), h).Msg("closing connection: undecodable ApiVersions request")
		return nil, false
	case h.version >= 3 && !(validSoftware(req.ClientSoftwareName) && validSoftware(req.ClientSoftwareVersion)):
		resp.ErrorCode = kerr.InvalidRequest.Code
		withHeader(c.log.Info(), h).Str("software_name", req.ClientSoftwareName).
			Str("software_version", req.ClientSoftwareVersion).Msg("ApiVersions with invalid client software name or version")
	default:
		s.fillApiVersions(resp)
		withHeader(c.log.Debug(), h).Str("software_name", req.ClientSoftwareName).
			Str("software_version", req.ClientSoftwareVersion).Msg("ApiVersions served")
	}
	return resp, true
}

// fillApiVersions fills a successful response at resp's version.
func (s *Server) fillApiVersions(resp *kmsg.ApiVersionsResponse) {
	if s.features != nil {
		s.features(resp)
	}
	resp.ErrorCode = 0
	resp.ThrottleMillis = 0
	apis := s.advertised()
	resp.ApiKeys = make([]kmsg.ApiVersionsResponseApiKey, 0, len(apis))
	for _, vr := range apis {
		resp.ApiKeys = append(resp.ApiKeys, apiKeyEntry(vr))
	}
	if resp.Version < 4 {
		// A new slice: the callback's may be shared.
		var kept []kmsg.ApiVersionsResponseSupportedFeature
		for _, f := range resp.SupportedFeatures {
			if f.MinVersion != 0 {
				kept = append(kept, f)
			}
		}
		resp.SupportedFeatures = kept
	}
}

// advertised is what ApiVersions lists: the Mux's routes, plus the SASL
// keys the server answers itself on a SASL listener.
func (s *Server) advertised() []VersionRange {
	apis := s.mux.APIs()
	if s.sasl == nil {
		return apis
	}
	for _, vr := range saslRanges() {
		if !slices.ContainsFunc(apis, func(a VersionRange) bool { return a.Key == vr.Key }) {
			apis = append(apis, vr)
		}
	}
	slices.SortFunc(apis, func(a, b VersionRange) int { return int(a.Key) - int(b.Key) })
	return apis
}

func apiKeyEntry(vr VersionRange) kmsg.ApiVersionsResponseApiKey {
	k := kmsg.NewApiVersionsResponseApiKey()
	k.ApiKey, k.MinVersion, k.MaxVersion = vr.Key, vr.Min, vr.Max
	return k
}

// validSoftware reports whether s matches Kafka's KIP-511 pattern
// [a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])? in full.
func validSoftware(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if !isAlnum(s[i]) && s[i] != '-' && s[i] != '.' {
			return false
		}
	}
	return true
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}
