package judge0

// Status is a Judge0 status: its id and description, as GET /statuses lists them and a
// submission's "status" field shows them.
type Status struct {
	ID          int    `json:"id"`
	Description string `json:"description"`
}

// Judge0's fourteen statuses (Judge0 CE 1.13.1, app/enumerations/status.rb).
var (
	StatusInQueue    = Status{1, "In Queue"}
	StatusProcessing = Status{2, "Processing"}
	StatusAccepted   = Status{3, "Accepted"}
	StatusWrong      = Status{4, "Wrong Answer"}
	StatusTLE        = Status{5, "Time Limit Exceeded"}
	StatusCE         = Status{6, "Compilation Error"}
	StatusSIGSEGV    = Status{7, "Runtime Error (SIGSEGV)"}
	StatusSIGXFSZ    = Status{8, "Runtime Error (SIGXFSZ)"}
	StatusSIGFPE     = Status{9, "Runtime Error (SIGFPE)"}
	StatusSIGABRT    = Status{10, "Runtime Error (SIGABRT)"}
	StatusNZEC       = Status{11, "Runtime Error (NZEC)"}
	StatusOther      = Status{12, "Runtime Error (Other)"}
	StatusInternal   = Status{13, "Internal Error"}
	StatusExecFormat = Status{14, "Exec Format Error"}
)

// Statuses is GET /statuses: all fourteen, by id.
func Statuses() []Status {
	return []Status{StatusInQueue, StatusProcessing, StatusAccepted, StatusWrong, StatusTLE, StatusCE,
		StatusSIGSEGV, StatusSIGXFSZ, StatusSIGFPE, StatusSIGABRT, StatusNZEC, StatusOther, StatusInternal,
		StatusExecFormat}
}

// signalStatus is Judge0's runtime error for a program killed by sig: SIGSEGV (11),
// SIGXFSZ (25), SIGFPE (8) and SIGABRT (6) have their own ids, any other is "Other".
func signalStatus(sig int) Status {
	switch sig {
	case 11:
		return StatusSIGSEGV
	case 25:
		return StatusSIGXFSZ
	case 8:
		return StatusSIGFPE
	case 6:
		return StatusSIGABRT
	}
	return StatusOther
}
