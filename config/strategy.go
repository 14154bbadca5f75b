package config

import "strings"

// UncleanRecoveryStrategy is unclean.recovery.strategy (KIP-966): what the
// controller does when a partition has no ISR or ELR member left alive.
type UncleanRecoveryStrategy string

// The strategies, spelled as KIP-966 spells them.
const (
	// RecoveryNone never elects an unclean leader: the partition stays
	// offline until an ISR or ELR member returns, or an operator acts.
	RecoveryNone UncleanRecoveryStrategy = "None"
	// RecoveryBalanced (the default) recovers automatically where data loss
	// is possible, after asking the replicas for their logs (bounded by
	// unclean.recovery.timeout.ms) so the best one leads.
	RecoveryBalanced UncleanRecoveryStrategy = "Balanced"
	// RecoveryAggressive restores availability as fast as it can, even
	// where data loss is likely.
	RecoveryAggressive UncleanRecoveryStrategy = "Aggressive"
)

func recoveryStrategies() []UncleanRecoveryStrategy {
	return []UncleanRecoveryStrategy{RecoveryNone, RecoveryBalanced, RecoveryAggressive}
}

// ParseUncleanRecoveryStrategy reads a strategy case-insensitively, as Kafka
// reads enumerated configs, and returns its canonical spelling.
func ParseUncleanRecoveryStrategy(s string) (UncleanRecoveryStrategy, bool) {
	for _, st := range recoveryStrategies() {
		if strings.EqualFold(strings.TrimSpace(s), string(st)) {
			return st, true
		}
	}
	return "", false
}

// Valid reports whether s is one of the canonical strategies.
func (s UncleanRecoveryStrategy) Valid() bool {
	for _, st := range recoveryStrategies() {
		if s == st {
			return true
		}
	}
	return false
}

func allowedStrategies() string {
	ss := recoveryStrategies()
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return "must be one of " + strings.Join(out, ", ")
}
