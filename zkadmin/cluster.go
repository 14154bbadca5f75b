package zkadmin

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	"github.com/kzadmin/kzadmin/znodes"
)

// EnsureTopLevelPaths creates Kafka's persistent top-level znodes, as every
// Kafka broker does at start-up (createTopLevelPaths), in Kafka's order.
// Existing znodes are left alone.
func (c *Client) EnsureTopLevelPaths(ctx context.Context) error {
	for _, p := range znodes.TopLevelPersistentPaths() {
		if err := c.EnsurePath(ctx, p); err != nil {
			return fmt.Errorf("create top-level znode %s: %w", p, err)
		}
	}
	return nil
}

// GetOrCreateClusterID returns the cluster id in /cluster/id, creating the
// znode when it is missing, as a Kafka broker does at start-up. proposed is
// the id to create; empty means a new random one in Kafka's form (a
// base64url UUID). When another process creates the znode first, its id
// wins and is returned.
func (c *Client) GetOrCreateClusterID(ctx context.Context, proposed string) (string, error) {
	for attempt := 0; attempt < 3; attempt++ {
		data, _, err := c.Get(ctx, znodes.ClusterIDPath)
		if err == nil {
			id, err := znodes.DecodeClusterID(data)
			if err != nil {
				return "", fmt.Errorf("read cluster id: %w", err)
			}
			return id.ID, nil
		}
		if !errors.Is(err, ErrNoNode) {
			return "", fmt.Errorf("read cluster id: %w", err)
		}
		if proposed == "" {
			if proposed, err = znodes.NewClusterID(rand.Reader); err != nil {
				return "", fmt.Errorf("generate cluster id: %w", err)
			}
		}
		payload, err := znodes.ClusterID{ID: proposed}.Encode()
		if err != nil {
			return "", err
		}
		_, err = c.CreateRecursive(ctx, znodes.ClusterIDPath, payload, Persistent)
		if err == nil {
			return proposed, nil
		}
		if !errors.Is(err, ErrNodeExists) {
			return "", fmt.Errorf("create cluster id: %w", err)
		}
		// Lost the race to another creator: read theirs.
	}
	return "", fmt.Errorf("create cluster id: %s keeps changing", znodes.ClusterIDPath)
}
