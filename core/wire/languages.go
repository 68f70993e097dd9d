package wire

// Language is one configured language.
type Language struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Lane       string `json:"lane"`
	SourceFile string `json:"source_file"`
	Compiled   bool   `json:"compiled"`
}

// Languages is the answer of GET /api/v1/languages.
type Languages struct {
	Languages []Language `json:"languages"`
}
