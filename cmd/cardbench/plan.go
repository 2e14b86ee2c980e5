package main

import "time"

// plan is the size of every workload for a mode.
type plan struct {
	rounds    int           // interleaved rounds per throughput comparison
	round     time.Duration // one wrk run
	conns     []int         // connections of the read mix
	cardConns int           // connections of card detail and the access comparison
	// Card detail carries the issues' throughput targets: more and shorter
	// rounds than the other comparisons, so that its medians hold against
	// a shared machine's drift.
	cardRounds int
	cardRound  time.Duration
	listLen    int           // requests per generated list (cycled by wrk)
	warmLimit  time.Duration // bound of one validation and warm-up pass
	startLimit time.Duration // bound of a server's start (the edge verifies the snapshot)

	typeUsersPerSec float64
	typeSpan        time.Duration
	typeInterval    time.Duration
	typeMaxChars    int
	typeRounds      int // interleaved rounds; users arrive over typeSpan/typeRounds in each

	lookupRate   float64       // requests/s of the HTTP lookup workload (issue 5: >= 5,000)
	lookupRound  time.Duration // one open-loop run of one target
	lookupRounds int           // interleaved rounds per target
	lookupConns  int           // connections (issue 5: 64)

	searchRate   float64       // requests/s of each kind of the search workload
	searchRound  time.Duration // one open-loop run of one kind
	searchRounds int           // interleaved rounds per kind
	searchConns  int

	mcpAgents int
	mcpSpan   time.Duration
	// mcpQuoteAgents call quote with one id for mcpQuoteSpan (issue 35's
	// figure: p50 under 4 agents).
	mcpQuoteAgents int
	mcpQuoteSpan   time.Duration

	swapRate float64       // requests/s of the read mix during the swap
	swapBase time.Duration // load before the build starts
	swapTail time.Duration // load after the new snapshot is seen

	budget time.Duration
}

func planFor(c Config) plan {
	p := plan{
		rounds: 3, round: 4 * time.Second, conns: []int{16, 64, 256}, cardConns: 64, cardRounds: 9, cardRound: 2 * time.Second,
		listLen: 20000, warmLimit: 40 * time.Second, startLimit: 3 * time.Minute,
		typeUsersPerSec: 60, typeSpan: 10 * time.Second, typeInterval: 120 * time.Millisecond, typeMaxChars: 14, typeRounds: 5,
		lookupRate: 5000, lookupRound: 2 * time.Second, lookupRounds: 5, lookupConns: 64,
		searchRate: 300, searchRound: 3 * time.Second, searchRounds: 5, searchConns: 16,
		mcpAgents: 16, mcpSpan: 15 * time.Second, mcpQuoteAgents: 4, mcpQuoteSpan: 5 * time.Second,
		swapRate: 2000, swapBase: 5 * time.Second, swapTail: 5 * time.Second,
		budget: 13*time.Minute + 30*time.Second,
	}
	if c.Mode == "quick" {
		p = plan{
			rounds: 1, round: time.Second, conns: []int{16, 64, 256}, cardConns: 64, cardRounds: 1, cardRound: time.Second,
			listLen: 5000, warmLimit: 10 * time.Second, startLimit: time.Minute,
			typeUsersPerSec: 60, typeSpan: 3 * time.Second, typeInterval: 100 * time.Millisecond, typeMaxChars: 8, typeRounds: 3,
			lookupRate: 5000, lookupRound: time.Second, lookupRounds: 3, lookupConns: 64,
			searchRate: 200, searchRound: time.Second, searchRounds: 3, searchConns: 16,
			mcpAgents: 4, mcpSpan: 2 * time.Second, mcpQuoteAgents: 4, mcpQuoteSpan: time.Second,
			swapRate: 1000, swapBase: 2 * time.Second, swapTail: 2 * time.Second,
			budget: time.Minute + 40*time.Second,
		}
	}
	if c.Preset == "large" {
		// A search costs about 2 ms of CPU on the large snapshot (1 ms on
		// default): 300/s would leave the one CPU of the edge no headroom.
		p.searchRate = 100
	}
	if c.Rounds > 0 {
		p.rounds, p.cardRounds = c.Rounds, c.Rounds
	}
	if c.RoundDur > 0 {
		p.round = c.RoundDur.Round(time.Second)
		p.cardRound = p.round
	}
	if c.Budget > 0 {
		p.budget = c.Budget
	}
	return p
}
