package stream

// Grouped is a batch of entries sorted by the submission each carries, as the worker's
// claim and the admin reclaim both need them: several entries may carry one submission
// (a redrive next to the original), and they are decided and acked together.
type Grouped struct {
	// IDs are the submission ids, in the order of their first entry.
	IDs []string
	// Entries are the entry ids of each submission id.
	Entries map[string][]string
	// Malformed are the entries that carry no usable submission id (Entry.Malformed):
	// they must never reach PostgreSQL, and are dropped (Streams.Drop).
	Malformed []Entry
}

// GroupBySubmission groups entries by submission and sets the malformed ones apart.
func GroupBySubmission(entries []Entry) Grouped {
	g := Grouped{Entries: map[string][]string{}}
	for _, e := range entries {
		if e.Malformed != "" {
			g.Malformed = append(g.Malformed, e)
			continue
		}
		if _, seen := g.Entries[e.SubmissionID]; !seen {
			g.IDs = append(g.IDs, e.SubmissionID)
		}
		g.Entries[e.SubmissionID] = append(g.Entries[e.SubmissionID], e.ID)
	}
	return g
}
