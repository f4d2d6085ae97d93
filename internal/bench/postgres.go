package bench

import (
	"context"

	"github.com/garrison-ci/garrison/internal/store/postgres"
)

// ScratchPostgres is an Options.NewDatabase that makes each run's database on the
// PostgreSQL server of dsn (a role that may create databases) and drops it afterwards.
func ScratchPostgres(dsn string) func(context.Context) (string, func(context.Context) error, error) {
	return func(ctx context.Context) (string, func(context.Context) error, error) {
		return postgres.CreateScratchDatabase(ctx, dsn, "garrison_bench_")
	}
}
