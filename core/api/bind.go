package api

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// Listen binds the API's TCP address. It is done before anything is logged as
// listening, so a busy or forbidden address fails the start with an error that says what
// to do. Port 0 takes an ephemeral port: the listener's Addr is what was bound.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil {
		return ln, nil
	}
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, fmt.Errorf("listen %s: address already in use — is another ojd running? "+
			"Stop it, or choose another address: api.listen in the config, OJ_API_LISTEN, or --listen "+
			"(make run: API_ADDR=host:port, API_ADDR=127.0.0.1:0 for any free port)", addr)
	case errors.Is(err, syscall.EACCES):
		return nil, fmt.Errorf("listen %s: permission denied — ports below 1024 need root or "+
			"CAP_NET_BIND_SERVICE; choose a port above 1024 with api.listen, OJ_API_LISTEN or --listen", addr)
	}
	return nil, fmt.Errorf("listen %s: %w (set api.listen, OJ_API_LISTEN or --listen to a host:port this machine can bind)", addr, err)
}
