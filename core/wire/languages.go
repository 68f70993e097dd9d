package wire

// Language is one configured language.
type Language struct {
	ID string `json:"id"`
	// Name carries the version a live worker's self-check detected (Detected), or none.
	Name       string `json:"name"`
	Detected   bool   `json:"detected"`
	Lane       string `json:"lane"`
	SourceFile string `json:"source_file"`
	Compiled   bool   `json:"compiled"`
	// Compile and Run are the commands as configured, placeholders unexpanded
	// (docs/languages.md); Compile is empty for a language without a compile step.
	Compile      []string `json:"compile"`
	Run          []string `json:"run"`
	TimeFactor   float64  `json:"time_factor"`
	MemoryFactor float64  `json:"memory_factor"`
}

// Languages is the answer of GET /api/v1/languages.
type Languages struct {
	Languages []Language `json:"languages"`
}
