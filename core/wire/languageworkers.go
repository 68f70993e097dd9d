package wire

// LanguageWorkers is one configured language's live workers in the overview: how many
// run it, by state, and what an operator should know when none of them judges.
type LanguageWorkers struct {
	Language string `json:"language"`
	// Live counts the live workers (seen within 35 s, not stopped) that run the
	// language, in any state; Active those that claim.
	Live        int `json:"live"`
	Active      int `json:"active"`
	Quarantined int `json:"quarantined"`
	Disabled    int `json:"disabled"`
	Draining    int `json:"draining"`
	// Problem is set when no live active worker runs the language: "no live worker runs
	// cpp17", "its only live worker, w1, is quarantined", or the states of its live
	// workers. Empty when one judges it.
	Problem string `json:"problem,omitempty"`
}
