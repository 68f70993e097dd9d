package judge

import (
	"testing"

	"oj/core/job"
)

// TestPackageInATopFolderJudges: a package zipped with its folder (and macOS's
// __MACOSX beside it) goes through the worker's cache like any other: extracted
// without the folder, its cases found and judged.
func TestPackageInATopFolderJudges(t *testing.T) {
	files, script := scripted(t, oneSecond, job.VerdictAC, job.VerdictWA)
	inFolder := map[string]string{"__MACOSX/aplusb/._problem.yaml": "junk", "aplusb/.DS_Store": "junk"}
	for n, c := range files {
		inFolder["aplusb/"+n] = c
	}
	fr := &fakeRunner{script: script}
	j, store := fakeJudge(t, fr)
	out := judgeFake(t, j, store, inFolder)
	if out.Verdict != job.VerdictWA || len(out.Cases) != 2 || out.Cases[0].Verdict != job.VerdictAC || fr.runs != 2 {
		t.Fatalf("%s after %d runs: %+v", out.Verdict, fr.runs, out.Cases)
	}
}
