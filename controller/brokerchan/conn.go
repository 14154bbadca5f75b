package brokerchan

import (
	"context"
	"fmt"

	"github.com/kzadmin/kzadmin/internal/kafkaconn"
)

// ResponseSizeError reports a response size prefix outside [4, max]. It is
// kafkaconn's type, named here so callers of this package need not import
// an internal one to branch on it.
type ResponseSizeError = kafkaconn.ResponseSizeError

// CorrelationError reports a response whose correlation id is not the one
// of the request in flight. The connection is unusable afterwards.
type CorrelationError = kafkaconn.CorrelationError

// dialConn connects to addr within the connect timeout, or until ctx ends,
// and wraps the connection in a kafkaconn.Conn that sends the exact
// version each request holds: no ApiVersions exchange, as Kafka's
// controller-to-broker channel does none. Each round trip is bounded by
// the request timeout.
func dialConn(ctx context.Context, set settings, addr string) (*kafkaconn.Conn, error) {
	dctx, cancel := context.WithTimeout(ctx, set.connectTimeout)
	defer cancel()
	nc, err := set.dial(dctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("connect to %s: %w", addr, err)
	}
	return kafkaconn.New(nc, addr, kafkaconn.Config{
		ClientID:    set.clientID,
		MaxResponse: set.maxResponse,
		Timeout:     set.requestTimeout,
	}), nil
}
