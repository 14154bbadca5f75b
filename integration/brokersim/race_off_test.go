//go:build !race

package brokersim

const raceEnabled = false
