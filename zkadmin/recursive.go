package zkadmin

import (
	"context"
	"errors"
)

// EnsurePath makes sure a persistent znode exists at path, creating it and
// any missing ancestors with null data. NodeExists is success: this is
// Kafka's makeSurePersistentPathExists.
func (c *Client) EnsurePath(ctx context.Context, path string) error {
	if path == "/" {
		return nil
	}
	_, err := c.Create(ctx, path, nil, Persistent)
	if err == nil || errors.Is(err, ErrNodeExists) {
		return nil
	}
	if !errors.Is(err, ErrNoNode) {
		return err
	}
	if err := c.EnsurePath(ctx, parentOf(path)); err != nil {
		return err
	}
	_, err = c.Create(ctx, path, nil, Persistent)
	if err == nil || errors.Is(err, ErrNodeExists) {
		return nil
	}
	return err
}

// CreateRecursive creates a znode, first creating any missing ancestors
// (persistent, null data), as Kafka's createRecursive does. Unlike
// EnsurePath, ErrNodeExists on the znode itself is returned.
func (c *Client) CreateRecursive(ctx context.Context, path string, data []byte, mode CreateMode) (string, error) {
	created, err := c.Create(ctx, path, data, mode)
	if !errors.Is(err, ErrNoNode) {
		return created, err
	}
	if err := c.EnsurePath(ctx, parentOf(path)); err != nil {
		return "", err
	}
	return c.Create(ctx, path, data, mode)
}
