package brokersim

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/kzadmin/kzadmin/internal/kafkaconn"
)

// maxResponseSize bounds a response frame from the controller.
const maxResponseSize = 64 << 20

// dialKafka connects to addr within ctx. Brokers talk to the controller
// over such a connection, one request at a time (ControlledShutdown
// without version discovery; AlterPartition after ApiVersions); timeout
// bounds each request on it.
func dialKafka(ctx context.Context, addr, clientID string, timeout time.Duration) (*kafkaconn.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", addr, err)
	}
	return kafkaconn.New(nc, addr, kafkaconn.Config{
		ClientID:        clientID,
		Timeout:         timeout,
		MaxResponse:     maxResponseSize,
		SoftwareName:    "kzadmin-brokersim",
		SoftwareVersion: "1",
	}), nil
}
