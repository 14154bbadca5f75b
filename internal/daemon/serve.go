package daemon

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/kzadmin/kzadmin/controller"
)

// serveHTTP serves /metrics (Prometheus), /healthz (the process is up and
// its ZooKeeper session is connected) and /readyz (this node is the active
// controller and has loaded the cluster, or is a standby that knows who is).
func (d *Daemon) serveHTTP(reg *prometheus.Registry) error {
	if d.conf.HTTPListen == "" {
		return nil
	}
	ln, err := net.Listen("tcp", d.conf.HTTPListen)
	if err != nil {
		return fmt.Errorf("kzadmin.http.listen=%s: %w", d.conf.HTTPListen, err)
	}
	d.httpAddr = ln.Addr()
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), time.Second)
		defer cancel()
		if err := d.zk.WaitConnected(ctx); err != nil {
			http.Error(w, "zookeeper: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		st := d.ctrl.Status()
		if !ready(st) {
			http.Error(w, fmt.Sprintf("not ready: active=%v ready=%v controller=%d", st.Active, st.Ready, st.ActiveControllerID), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintf(w, "ok: active=%v controller=%d epoch=%d\n", st.Active, st.ActiveControllerID, st.Epoch)
	})
	d.http = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := d.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			d.log.Error().Err(err).Msg("HTTP server stopped")
		}
	}()
	return nil
}

func ready(st controller.Status) bool {
	if st.Active {
		return st.Ready
	}
	return st.ActiveControllerID >= 0
}

func httpURL(a net.Addr) string {
	if a == nil {
		return ""
	}
	return "http://" + a.String()
}

// Controller is the daemon's controller, for tests and status pages.
func (d *Daemon) Controller() *controller.Controller { return d.ctrl }

// KafkaAddr is where the first Kafka-protocol listener accepts
// connections.
func (d *Daemon) KafkaAddr() string { return d.listeners[0].ln.Addr().String() }

// ListenerAddr is where the named listener accepts connections, or "".
func (d *Daemon) ListenerAddr(name string) string {
	if l := d.listener(name); l != nil {
		return l.ln.Addr().String()
	}
	return ""
}

// HTTPAddr is where metrics and health are served ("" when disabled).
func (d *Daemon) HTTPAddr() string {
	if d.httpAddr == nil {
		return ""
	}
	return d.httpAddr.String()
}

// ZooKeeperServers are the servers the daemon talks to (in dev mode, its
// own local ZooKeeper).
func (d *Daemon) ZooKeeperServers() []string { return d.conf.ZooKeeper.Connect.Servers }

// Stop shuts everything down in reverse order of start: simulated brokers
// (controlled shutdown), the controller (which resigns and frees
// /controller), the listeners, the ZooKeeper session, the dev ZooKeeper.
func (d *Daemon) Stop(ctx context.Context) error {
	var errs []error
	if d.dev != nil {
		errs = append(errs, d.dev.stopBrokers(ctx))
	}
	if d.cancel != nil {
		d.cancel()
		select {
		case err := <-d.done:
			if err != nil && !errors.Is(err, context.Canceled) {
				errs = append(errs, fmt.Errorf("controller: %w", err))
			}
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("controller did not stop: %w", ctx.Err()))
		}
		d.cancel = nil
	}
	if d.followersDone != nil {
		select {
		case <-d.followersDone:
		case <-ctx.Done():
			errs = append(errs, fmt.Errorf("controller directory or feature follower did not stop: %w", ctx.Err()))
		}
		d.followersDone = nil
	}
	d.teardown()
	return errors.Join(errs...)
}

// Done delivers the controller's exit error, e.g.
// controller.ErrNodeIDConflict, if Run ends before Stop.
func (d *Daemon) Done() <-chan error { return d.done }

func (d *Daemon) teardown() {
	d.closeListeners()
	if d.aclStop != nil {
		d.aclStop()
		d.aclStop = nil
	}
	if d.http != nil {
		_ = d.http.Close()
		d.http = nil
	}
	if d.zk != nil {
		d.zk.Close()
		d.zk = nil
	}
	if d.zkLogin != nil {
		// A Kerberos login renews its tickets until closed.
		d.zkLogin.Close()
		d.zkLogin = nil
	}
	if d.dev != nil {
		d.dev.stopZooKeeper(d.log)
	}
}
