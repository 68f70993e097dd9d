package judge0

import (
	"encoding/json"
	"strings"
	"testing"

	"oj/core/job"
	"oj/core/judge/lang"
)

func TestValidateTranslatesOntoARun(t *testing.T) {
	ls := NewLanguages(lang.Default(), nil)
	l := NewLimits(job.DefaultRunsConfig(), 1000)
	b := Bounds{MaxSourceBytes: 1 << 16, MaxStdinBytes: 1 << 20, OutputBytes: 1 << 16}
	raw := json.RawMessage(`{"language_id":"54","source_code":"int main(){}","stdin":"1 2","cpu_time_limit":"1.5",
		"cpu_extra_time":0.5,"wall_time_limit":4,"memory_limit":65536,"stack_limit":8000,"max_processes_and_or_threads":4,
		"max_file_size":100,"number_of_runs":2,"redirect_stderr_to_stdout":"true","enable_network":false,
		"command_line_arguments":"a 'b c'","compiler_options":"-O2 -DX=1","callback_url":"https://hooks.example/x",
		"unknown_key":"ignored"}`)
	var errs Errors
	p := Validate(ParseRequest(raw, false, &errs), ls, l, b, &errs)
	if !errs.Empty() {
		b, _ := errs.MarshalJSON()
		t.Fatalf("errors: %s", b)
	}
	s := p.Spec
	if p.Language.OJ.ID != "cpp17" || s.TimeMS != 1500 || s.ExtraTimeMS != 500 || s.WallMS != 4000 || s.MemoryMB != 64 ||
		s.StackKB != 8000 || s.Processes != 4 || s.MaxFileKB != 100 || s.Runs != 2 || !s.RedirectStderr ||
		strings.Join(s.Args, "|") != "a|b c" || strings.Join(s.CompilerArgs, "|") != "-O2|-DX=1" ||
		p.Callback != "https://hooks.example/x" || len(s.Stdins) != 1 || s.Stdins[0] != "1 2" {
		t.Fatalf("plan: %+v spec %+v", p, s)
	}
	var e Echo
	if err := json.Unmarshal(s.Face, &e); err != nil || e.LanguageID != 54 || e.CPUTimeLimit != 1.5 || *e.CommandLineArguments != "a 'b c'" {
		t.Fatalf("echo: %+v %v", e, err)
	}
}

func TestParseRequestBase64(t *testing.T) {
	var errs Errors
	r := ParseRequest(json.RawMessage(`{"source_code":"cHJpbnQoMSk=\n","stdin":"/w==","expected_output":null}`), true, &errs)
	if *r.SourceCode != "print(1)" || *r.Stdin != "\xff" || r.ExpectedOutput != nil || !errs.Empty() {
		t.Fatalf("%+v", r)
	}
	errs = Errors{}
	ParseRequest(json.RawMessage(`[1,2]`), false, &errs)
	if b, _ := errs.MarshalJSON(); string(b) != `{"submission":["must be a JSON object"]}` {
		t.Fatalf("not an object: %s", b)
	}
}

func FuzzParseRequest(f *testing.F) {
	f.Add([]byte(`{"language_id":71,"source_code":"x","memory_limit":"12","enable_network":"t"}`), false)
	f.Add([]byte(`{"source_code":"!!!","additional_files":"UEsDBA=="}`), true)
	ls := NewLanguages(lang.Default(), nil)
	l := NewLimits(job.DefaultRunsConfig(), 1000)
	b := Bounds{MaxSourceBytes: 1 << 16, MaxStdinBytes: 1 << 20, OutputBytes: 1 << 16}
	f.Fuzz(func(t *testing.T, raw []byte, b64 bool) {
		var errs Errors
		p := Validate(ParseRequest(raw, b64, &errs), ls, l, b, &errs)
		if errs.Empty() && (p.Language.OJ == nil || p.Spec.TimeMS <= 0 || p.Spec.MemoryMB <= 0 || len(p.Spec.Stdins) != 1) {
			t.Fatalf("accepted without a language or limits: %+v", p)
		}
		if _, err := errs.MarshalJSON(); err != nil {
			t.Fatal(err)
		}
	})
}
