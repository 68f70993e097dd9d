// Package webhook is how oj sends one webhook: the Standard Webhooks signature
// (webhook-id, webhook-timestamp, webhook-signature: v1,<base64 HMAC-SHA256 of
// "{id}.{timestamp}.{body}">), the HTTP try and its classification (only a 2xx is
// delivered; a 3xx is a failure, redirects are never followed; 410 gives the endpoint
// up; 429 and 503 say when to come back), the retry schedule, and the guard that keeps
// webhooks off the operator's own network: every address actually dialled — after DNS,
// so a name resolving to 127.0.0.1 is caught — is refused when it is loopback, private,
// link-local (cloud metadata), CGNAT, unspecified, multicast or reserved, unless
// webhooks.allow_private is set.
//
// It holds no state: the dispatcher (core/dispatch) fans events out to deliveries,
// claims them and records each try in PostgreSQL; the API uses ValidateURL and
// NewSecret when an endpoint is registered.
package webhook
