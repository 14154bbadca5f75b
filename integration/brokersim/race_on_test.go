//go:build race

package brokersim

// raceEnabled lets the scale test skip what takes minutes under -race.
const raceEnabled = true
