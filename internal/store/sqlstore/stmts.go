package sqlstore

import (
	"context"
	"database/sql"
	"sync"
)

// maxCachedStatements bounds a stmtCache. The store's query texts are fixed, so the
// bound is only a safety net.
const maxCachedStatements = 512

// stmtCache keeps a prepared statement per database handle and query text
// (Dialect.PrepareStatements), so that a driver that parses the SQL of every unprepared
// call (modernc.org/sqlite) parses each query once per connection.
//
// A statement is prepared in the background on its first use, which runs unprepared:
// preparing takes a connection of the handle, and the caller may be holding the only one
// (SQLite's write handle) or the last free one inside a transaction.
type stmtCache struct {
	mu     sync.Mutex
	m      map[stmtKey]*sql.Stmt // nil value: being prepared, or could not be
	closed bool
	wg     sync.WaitGroup
}

type stmtKey struct {
	db    *sql.DB
	query string
}

func newStmtCache() *stmtCache { return &stmtCache{m: map[stmtKey]*sql.Stmt{}} }

// get returns the statement prepared for query on db, or nil (then run it unprepared)
// after starting its preparation if it is new.
func (c *stmtCache) get(db *sql.DB, query string) *sql.Stmt {
	if c == nil {
		return nil
	}
	k := stmtKey{db, query}
	c.mu.Lock()
	defer c.mu.Unlock()
	st, seen := c.m[k]
	if seen || c.closed || len(c.m) >= maxCachedStatements {
		return st
	}
	c.m[k] = nil
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		st, err := db.PrepareContext(context.Background(), query)
		if err != nil {
			return // stays nil: runs unprepared
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closed {
			_ = st.Close()
			return
		}
		c.m[k] = st
	}()
	return nil
}

// close closes the statements; call it after closing the handles, which ends the
// preparations still waiting for a connection.
func (c *stmtCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.closed = true
	c.mu.Unlock()
	c.wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, st := range c.m {
		if st != nil {
			_ = st.Close()
		}
		delete(c.m, k)
	}
}
