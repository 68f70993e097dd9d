package webhook

import "net/netip"

// NewSenderPermitting is NewSender whose guard lets permit's addresses through: a test's
// stand-in for a public address (this machine has none to offer).
func NewSenderPermitting(cfg Config, permit func(netip.Addr) bool) *Sender {
	return newSender(cfg, permit)
}
