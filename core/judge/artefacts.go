package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"oj/core/job"
	"oj/core/judge/objstore"
)

// storeArtefacts keeps the compile log and the cases' output excerpts in the object
// store (runs/<submission>/<attempt>/compile.log and cases.json), each bounded. They
// are diagnostics: failing to store them is logged and does not change the verdict.
func (j *Judge) storeArtefacts(ctx context.Context, t job.Task, arts artefacts) {
	if arts.CompileLog != "" {
		key := objstore.RunKey(t.SubmissionID, t.Attempt, objstore.CompileLogFile)
		if err := objstore.PutBounded(ctx, j.store, key, []byte(arts.CompileLog), j.cfg.CompileOutputBytes); err != nil {
			j.log.Warn("store compile log", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "err", err)
		}
	}
	if len(arts.Cases) == 0 {
		return
	}
	b, err := casesDocument(arts.Cases, caseBudget(j.cfg.ExcerptBytes))
	if err != nil {
		j.log.Warn("encode case excerpts", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "err", err)
		return
	}
	key := objstore.RunKey(t.SubmissionID, t.Attempt, objstore.CasesFile)
	if err := j.store.Put(ctx, key, bytes.NewReader(b), int64(len(b))); err != nil {
		j.log.Warn("store case excerpts", "submission_id", t.SubmissionID, "attempt", t.Attempt, "trace_id", t.TraceID, "err", err)
	}
}

// caseBudget is how many bytes one case may take in cases.json, encoded: its stdout,
// stderr and checker message of excerptBytes each, with room for escapes of a few, and
// its other fields.
func caseBudget(excerptBytes int) int { return 3*excerptBytes + 1024 }

// casesDocument encodes cases.json so that it always parses. The bound applies to each
// case's encoding, never to the document's bytes: JSON escapes a control character in six
// bytes, so an excerpt bounded in raw bytes can encode to six times its size, and cutting
// the document at a byte count left it broken (and every case of it unreadable, for
// admins too). A case over its budget has its longest texts shortened, at a character
// boundary and marked, until it fits. HTML escaping is off: <, > and & are one byte.
func casesDocument(cases []objstore.RunCase, budget int) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(`{"cases":[`)
	for i, c := range cases {
		enc, err := fitCase(c, budget)
		if err != nil {
			return nil, err
		}
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(enc)
	}
	buf.WriteString(`]}`)
	return buf.Bytes(), nil
}

// fitCase encodes c within budget bytes, shortening its texts as needed.
func fitCase(c objstore.RunCase, budget int) ([]byte, error) {
	for {
		enc, err := encodeCase(c)
		if err != nil || len(enc) <= budget {
			return enc, err
		}
		texts := []*string{&c.Stdout, &c.Stderr, &c.Checker}
		longest := texts[0]
		for _, s := range texts[1:] {
			if len(*s) > len(*longest) {
				longest = s
			}
		}
		base := strings.TrimSuffix(*longest, truncatedMark)
		if base == "" {
			// Nothing left to shorten: the texts are all but gone. Drop them whole.
			c.Stdout, c.Stderr, c.Checker = "", "", ""
			return encodeCase(c)
		}
		*longest = shorten(base, len(base)/2)
	}
}

func encodeCase(c objstore.RunCase) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// truncatedMark ends a text that was cut.
const truncatedMark = "…[truncated]"

// shorten cuts s to n < len(s) bytes at a character boundary and marks it.
func shorten(s string, n int) string {
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + truncatedMark
}
