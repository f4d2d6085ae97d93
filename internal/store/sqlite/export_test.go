package sqlite

import (
	"context"

	"github.com/garrison-ci/garrison/internal/store"
	"github.com/garrison-ci/garrison/internal/store/storetest"
)

// OpenAt is Open applying the migrations up to version only.
func OpenAt(ctx context.Context, path string, newSealer store.NewSealer, version int64) (*Store, error) {
	fsys, err := storetest.MigrationsUpTo(sub(migrations), version)
	if err != nil {
		return nil, err
	}
	return open(ctx, path, newSealer, Options{BusyTimeout: DefaultBusyTimeout}, fsys)
}
