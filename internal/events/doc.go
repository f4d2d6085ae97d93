// Package events carries changes of the store to the clients of the event stream
// (GET /api/v1/ws/events, streams-metrics.md §1.2).
//
// Store wraps a store.Store and publishes a garrison.Change to a Hub after every
// successful write, so that the stream and the REST API never disagree (EV-8). The Hub
// renders each change once (with a function the HTTP layer supplies) and fans the frame
// out to its subscribers. Nothing here ever blocks a writer: the Hub's input and every
// subscriber's queue are bounded, and what does not fit is dropped and counted.
// While nobody subscribes, publishing costs one atomic load.
package events
