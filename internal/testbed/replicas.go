package testbed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// ReplicaOptions configure StartReplicas.
type ReplicaOptions struct {
	// N is the number of replicas.
	N int
	// Garrison runs the garrison binary (`server` and its flags are appended).
	Garrison Command
	// DSN is the PostgreSQL database every replica shares.
	DSN string
	// LeaseTTL is [server] lease_ttl (0 = the default).
	LeaseTTL time.Duration
	// Provider is the provider executable the configs register ("" = ProviderScript).
	Provider string
	// Config is more TOML put at the top of each replica's config (sections the
	// replicas' part does not set: [database], [jwt_auth], [metrics], [server]).
	Config string
}

// Replicas are N `garrison server` processes sharing one PostgreSQL database, each with
// its own data directory (<bed>/replica<i>), port, config (<bed>/replica<i>.toml) and log
// (<bed>/replica<i>.log), behind a round-robin load balancer whose URL is the bed's URL:
// webhooks, API calls and instance callbacks spread over the replicas alive.
type Replicas struct {
	Procs []*ServerProcess
	LB    *RoundRobin

	lbSrv  *http.Server
	cancel context.CancelFunc
}

// StartReplicas writes the replicas' configs, starts them one after the other, serves
// the load balancer in front of them and sets URL to it. Stop it with Replicas.Close
// before the bed's Close.
func (b *Bed) StartReplicas(ctx context.Context, o ReplicaOptions) (*Replicas, error) {
	if o.N < 1 || o.DSN == "" {
		return nil, errors.New("testbed: replicas need N >= 1 and a PostgreSQL DSN")
	}
	shared := b.replicaConfig(o)
	r := &Replicas{}
	urls := make([]string, 0, o.N)
	for i := range o.N {
		p, err := b.newReplica(i, o, shared)
		if err != nil {
			return nil, errors.Join(err, r.Close())
		}
		r.Procs = append(r.Procs, p)
		urls = append(urls, p.URL)
	}
	for i, p := range r.Procs {
		if err := p.Start(ctx); err != nil {
			return nil, errors.Join(fmt.Errorf("starting replica %d: %w", i, err), r.Close())
		}
	}
	lb, err := NewRoundRobin(urls)
	if err != nil {
		return nil, errors.Join(err, r.Close())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, errors.Join(err, r.Close())
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r.LB, r.cancel = lb, cancel
	r.lbSrv = &http.Server{Handler: lb, ReadHeaderTimeout: 10 * time.Second}
	go lb.Watch(wctx)
	go func() { _ = r.lbSrv.Serve(ln) }()
	b.URL = "http://" + ln.Addr().String()
	fmt.Fprintf(b.out, "  %d replicas behind %s\n", o.N, b.URL)
	return r, nil
}

// replicaConfig is what the replicas' configs add to the bed's: the shared PostgreSQL
// database with one passphrase and one JWT secret, the lease TTL and an open /metrics.
func (b *Bed) replicaConfig(o ReplicaOptions) string {
	server := ""
	if o.LeaseTTL > 0 {
		server = fmt.Sprintf("\n[server]\nlease_ttl = %q\n", o.LeaseTTL.String())
	}
	return fmt.Sprintf(`
[database]
backend = "postgresql"
passphrase = %q

[database.postgresql]
dsn = %q

[jwt_auth]
secret = %q

[metrics]
enable = true
disable_auth = true
`, RandomToken(24), o.DSN, RandomToken(48)) + server
}

// newReplica writes replica i's config and prepares its process on a free port.
func (b *Bed) newReplica(i int, o ReplicaOptions, shared string) (*ServerProcess, error) {
	provider := o.Provider
	if provider == "" {
		provider = b.ProviderScript()
	}
	cfg := b.Path(fmt.Sprintf("replica%d.toml", i))
	if err := os.WriteFile(cfg, []byte(o.Config+b.ServerConfig(provider)+shared), 0o600); err != nil {
		return nil, err
	}
	addr, err := FreeLoopbackAddr()
	if err != nil {
		return nil, err
	}
	return NewServerProcess(o.Garrison, b.Path(fmt.Sprintf("replica%d", i)), addr, cfg, b.Path(fmt.Sprintf("replica%d.log", i)))
}

// ReplicaLog is replica i's log file.
func (b *Bed) ReplicaLog(i int) string { return b.Path(fmt.Sprintf("replica%d.log", i)) }

// Close stops the load balancer and kills every replica (SIGKILL: what is left is the
// test's to check, not a clean shutdown's to tidy).
func (r *Replicas) Close() error {
	if r.cancel != nil {
		r.cancel()
	}
	var errs []error
	if r.lbSrv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		errs = append(errs, r.lbSrv.Shutdown(ctx))
		cancel()
	}
	for _, p := range r.Procs {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// StopAll ends every running replica with SIGTERM and reports unclean exits (a data
// race found by the race detector makes a server exit non-zero).
func (r *Replicas) StopAll() error {
	var errs []error
	for i, p := range r.Procs {
		if err := p.Stop(); err != nil {
			errs = append(errs, fmt.Errorf("replica %d: %w", i, err))
		}
	}
	return errors.Join(errs...)
}

// Counter sums every series of the counter or gauge family name on replica i's
// /metrics (the replicas serve it without a token).
func (r *Replicas) Counter(ctx context.Context, i int, name string) (float64, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, r.Procs[i].URL+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("replica %d /metrics: %s", i, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, err
	}
	return SumSeries(string(body), name), nil
}

// SumSeries sums the values of the series of family name in a Prometheus text exposition.
func SumSeries(exposition, name string) float64 {
	var sum float64
	for line := range strings.Lines(exposition) {
		rest, ok := strings.CutPrefix(line, name)
		if !ok || (rest != "" && rest[0] != '{' && rest[0] != ' ') {
			continue
		}
		f := strings.Fields(rest[strings.LastIndexByte(rest, '}')+1:])
		if len(f) == 0 {
			continue
		}
		if v, err := strconv.ParseFloat(f[0], 64); err == nil {
			sum += v
		}
	}
	return sum
}
