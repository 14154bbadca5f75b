package config

import (
	"errors"
	"strings"
	"testing"
)

// TestValidateELRNeedsAlterPartition: ELR is refused below IBP 2.7-IV2
// (leaders there write the ISR themselves and drop the ELR fields), with
// an error naming both settings; at 2.7-IV2 and later, or with ELR off, the
// IBP is fine.
func TestValidateELRNeedsAlterPartition(t *testing.T) {
	for _, tc := range []struct {
		ibp     IBP
		elr     bool
		refused bool
	}{
		{IBP2_7_IV1, true, true},
		{IBP0_8_0, true, true},
		{IBP2_7_IV2, true, false},
		{IBPLatest, true, false},
		{IBP2_7_IV1, false, false},
	} {
		c := valid()
		c.InterBrokerProtocolVersion, c.EligibleLeaderReplicasEnable = tc.ibp, tc.elr
		err := c.Validate()
		if !tc.refused {
			if err != nil {
				t.Errorf("ibp %s elr %v: %v", tc.ibp, tc.elr, err)
			}
			continue
		}
		var ve *ValueError
		if !errors.As(err, &ve) || ve.Key != "eligible.leader.replicas.enable" {
			t.Fatalf("ibp %s: %v, want an eligible.leader.replicas.enable error", tc.ibp, err)
		}
		msg := err.Error()
		if !strings.Contains(msg, "inter.broker.protocol.version 2.7-IV2 or later (it is "+tc.ibp.String()+")") ||
			!strings.Contains(msg, "eligible.leader.replicas.enable") {
			t.Errorf("message does not name both settings: %s", msg)
		}
	}
}
