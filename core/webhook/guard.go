package webhook

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// ErrRefusedAddress is a dial the guard refused; errors.Is finds it in a try's error.
var ErrRefusedAddress = errors.New("address refused")

// blocked are the ranges a webhook may not reach without allow_private, with what each
// is. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) and NAT64 ones (64:ff9b::a.b.c.d) are
// judged by the IPv4 address inside.
var blocked = []struct {
	prefix netip.Prefix
	what   string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified (this-network) address"},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address"},
	{netip.MustParsePrefix("100.64.0.0/10"), "a shared (CGNAT) address"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address (cloud metadata lives there)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address"},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address"},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address"},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address"},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved address"},
	{netip.MustParsePrefix("::/128"), "an unspecified address"},
	{netip.MustParsePrefix("::1/128"), "a loopback address"},
	{netip.MustParsePrefix("fc00::/7"), "a private (unique local) address"},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address"},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address"},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address"},
}

var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// Refusal says why a is not for webhooks without allow_private ("" when it is fine).
func Refusal(a netip.Addr) string {
	a = a.Unmap()
	if a.Is6() && nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	if a.Zone() != "" {
		a = a.WithZone("")
	}
	for _, b := range blocked {
		if b.prefix.Contains(a) {
			return b.what
		}
	}
	return ""
}

// guard is the dialer's Control function: it sees the address actually dialled, after
// the name was resolved, so neither a name resolving to a private address nor a DNS
// answer that changed since the URL was checked gets through. permit, for tests, lets
// chosen addresses through.
type guard struct {
	allowPrivate bool
	permit       func(netip.Addr) bool
}

func (g guard) control(network, address string, _ syscall.RawConn) error {
	if g.allowPrivate {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrRefusedAddress, address, err)
	}
	if g.permit != nil && g.permit(ap.Addr()) {
		return nil
	}
	if why := Refusal(ap.Addr()); why != "" {
		return fmt.Errorf("%w: %s is %s (webhooks.allow_private is off)", ErrRefusedAddress, ap.Addr().Unmap(), why)
	}
	return nil
}

// MaxURLBytes bounds an endpoint's URL.
const MaxURLBytes = 2048

// ValidateURL checks an endpoint's URL when it is registered: http or https, a host, no
// user or password (a secret in a URL ends up in logs; the signature authenticates oj),
// no fragment, at most MaxURLBytes. Addresses are checked when dialled, not here: a
// name's address may change after registration.
func ValidateURL(raw string) error {
	if len(raw) > MaxURLBytes {
		return fmt.Errorf("url: %d bytes, at most %d", len(raw), MaxURLBytes)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("url: %v", err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("url %q: the scheme must be http or https", clip(raw))
	case u.Opaque != "" || u.Host == "" || u.Hostname() == "":
		return fmt.Errorf("url %q: no host", clip(raw))
	case u.User != nil:
		return fmt.Errorf("url %q: a user or password in the URL is refused (the signature authenticates oj to the receiver)", clip(raw))
	case u.Fragment != "" || strings.Contains(raw, "#"):
		return fmt.Errorf("url %q: a fragment is refused (it is never sent)", clip(raw))
	case strings.ContainsAny(raw, " \t\r\n"):
		return fmt.Errorf("url %q: white space is refused", clip(raw))
	}
	if p := u.Port(); p != "" {
		if _, err := net.LookupPort("tcp", p); err != nil || p == "0" {
			return fmt.Errorf("url %q: port %q", clip(raw), p)
		}
	}
	return nil
}

// lookupWait bounds the registration's DNS lookup of an endpoint's host.
const lookupWait = 2 * time.Second

// CheckAddress tells at registration what the guard would tell every try: an error when
// rawURL's host is an address the guard refuses, or a name whose addresses it all
// refuses (localhost, a name of the private network), unless allowPrivate. A name that
// does not resolve now passes: its addresses are checked when dialled, as always (a
// name's address may change after registration). rawURL has passed ValidateURL.
func CheckAddress(ctx context.Context, rawURL string, allowPrivate bool) error {
	if allowPrivate {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("url: %v", err)
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ctx, cancel := context.WithTimeout(ctx, lookupWait)
		defer cancel()
		if addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host); err != nil || len(addrs) == 0 {
			return nil
		}
	}
	var why []string
	for _, a := range addrs {
		w := Refusal(a)
		if w == "" {
			return nil // one address the tries may use
		}
		why = append(why, fmt.Sprintf("%s is %s", a.Unmap(), w))
	}
	return fmt.Errorf("url %q: %s: every delivery to it would be refused, since webhooks.allow_private is off "+
		"(true lets webhooks reach loopback, private and link-local addresses: a receiver on the judge's own network)",
		clip(rawURL), strings.Join(why, "; "))
}

func clip(s string) string {
	if len(s) <= 100 {
		return s
	}
	return s[:100] + "…"
}
