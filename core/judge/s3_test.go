package judge

import (
	"context"
	"reflect"
	"testing"

	"oj/core/job"
	"oj/core/judge/objstore"
	"oj/core/judge/objstore/s3test"
)

// TestSameOutcomeFromFSAndMinIO judges one problem served by the filesystem store and by
// a real MinIO server: the outcomes must be equal (times and memory aside).
func TestSameOutcomeFromFSAndMinIO(t *testing.T) {
	needSandbox(t)
	cfg := s3test.Config(t)
	ctx := context.Background()
	s3, err := objstore.NewS3(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	files := withFiles(aplusb("lines"), map[string]string{"tests/3.in": "7 8\n", "tests/3.out": "16\n"})
	data := zipOf(files)
	shaFS, err := objstore.PutProblem(ctx, testStore, data)
	if err != nil {
		t.Fatal(err)
	}
	shaS3, err := objstore.PutProblem(ctx, s3, data)
	if err != nil {
		t.Fatal(err)
	}
	if shaFS != shaS3 {
		t.Fatalf("sha256 differs: %s vs %s", shaFS, shaS3)
	}
	j3, err := newTestJudge(s3, "minio")
	if err != nil {
		t.Fatal(err)
	}
	defer j3.Close()
	for _, prog := range []string{"ac", "wa"} {
		src := readSource(t, "corpus/cpp17/"+prog+".cpp")
		a := judgeWith(t, testJudge, shaFS, "cpp17", src)
		b := judgeWith(t, j3, shaS3, "cpp17", src)
		if norm(a).Verdict == "" || !reflect.DeepEqual(norm(a), norm(b)) {
			t.Fatalf("%s: fs %+v\nminio %+v", prog, norm(a), norm(b))
		}
	}
	if n, _ := j3.cache.Usage(); n != 1 || j3.cache.Downloads() != 1 {
		t.Fatalf("minio judge cached %d packages in %d downloads", n, j3.cache.Downloads())
	}
	out := judgeWith(t, j3, shaS3, "cpp17", readSource(t, "corpus/cpp17/wa.cpp"))
	if out.Verdict != job.VerdictWA || out.Score != 100.0/3 && out.Score != 33.333333 {
		t.Fatalf("partial: %s %v", out.Verdict, out.Score)
	}
}

func norm(o job.Outcome) job.Outcome {
	o.TimeMS, o.MemoryKB = 0, 0
	cases := make([]job.CaseResult, len(o.Cases))
	for i, c := range o.Cases {
		c.TimeMS, c.MemoryKB = 0, 0
		cases[i] = c
	}
	o.Cases = cases
	return o
}
