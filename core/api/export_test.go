package api

import "time"

// SetLinger narrows the bounds of lingering (linger.go) so that tests can reach them. Call
// it before Handler serves anything.
func (s *Server) SetLinger(bytes int64, idle, total time.Duration) {
	s.linger = lingerBounds{bytes: bytes, idle: idle, total: total}
}
