package storetest

import (
	"bytes"
	"io"
	"slices"
	"testing"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/store"
)

var objectCases = []testCase{
	{"Objects/CRUD", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		a := ok(s.CreateObject(ctx, garrison.FileObject{Name: "a.bin", Description: "d", Size: 10, SHA256: "ab",
			FileType: "application/octet-stream", Tags: []string{"B", "a", " b ", ""}})).get(t)
		if a.ID == 0 || !slices.Equal(a.Tags, []string{"b", "a"}) {
			t.Fatalf("created %+v", a)
		}
		checkStamps(t, a.CreatedAt, a.UpdatedAt)
		b := ok(s.CreateObject(ctx, garrison.FileObject{Name: "a.bin", Size: 1})).get(t) // names need not be unique
		got := ok(s.Object(ctx, a.ID)).get(t)
		wantEqual(t, "size", got.Size, int64(10))
		wantEqual(t, "sha", got.SHA256, "ab")
		if !slices.Equal(got.Tags, []string{"b", "a"}) {
			t.Fatalf("tags %v", got.Tags)
		}
		if tags := ok(s.Object(ctx, b.ID)).get(t).Tags; tags == nil || len(tags) != 0 {
			t.Fatalf("tags of an untagged object: %#v", tags)
		}
		list := ok(s.ListObjects(ctx)).get(t)
		if len(list) != 2 || list[0].ID != b.ID || list[1].ID != a.ID {
			t.Fatalf("list is not newest first: %+v", list)
		}
		up := ok(s.UpdateObject(ctx, a.ID, func(o *garrison.FileObject) error {
			o.Name, o.Tags, o.Size = "c.bin", []string{"X"}, 999
			return nil
		})).get(t)
		if up.Name != "c.bin" || up.Size != 10 || !slices.Equal(up.Tags, []string{"x"}) {
			t.Fatalf("updated %+v", up)
		}
		wantErr(t, second(s.UpdateObject(ctx, a.ID, func(o *garrison.FileObject) error { o.Name = "../x"; return nil })), garrison.ErrInvalid)
		wantErr(t, second(s.CreateObject(ctx, garrison.FileObject{Name: "a/b"})), garrison.ErrInvalid)
		wantErr(t, second(s.UpdateObject(ctx, 99999, func(*garrison.FileObject) error { return nil })), garrison.ErrNotFound)
		must(t, s.DeleteObject(ctx, a.ID))
		must(t, s.DeleteObject(ctx, a.ID))
		wantErr(t, second(s.Object(ctx, a.ID)), garrison.ErrNotFound)
	}},
}

// objectContentCases check that an object's content round-trips through its chunk rows,
// whatever its size relative to a chunk, and goes with its record.
var objectContentCases = []testCase{
	{"Objects/Content", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		const chunk = store.ObjectChunkSize
		for _, size := range []int{0, 1, chunk - 1, chunk, chunk + 1, 3*chunk + 17} {
			content := pattern(size)
			o := ok(s.CreateObjectContent(ctx, garrison.FileObject{Name: "c.bin", Size: int64(size)}, bytes.NewReader(content))).get(t)
			if has := ok(s.HasObjectContent(ctx, o.ID)).get(t); !has {
				t.Fatalf("%d bytes: no content stored", size)
			}
			var got bytes.Buffer
			must(t, s.WriteObjectContent(ctx, o.ID, &got))
			if !bytes.Equal(got.Bytes(), content) {
				t.Fatalf("%d bytes: read back %d bytes, not the same", size, got.Len())
			}
			must(t, s.DeleteObject(ctx, o.ID))
			wantErr(t, s.WriteObjectContent(ctx, o.ID, io.Discard), garrison.ErrNotFound)
		}
	}},
	{"Objects/ContentRefused", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		for _, tt := range []struct {
			name    string
			o       garrison.FileObject
			content []byte
		}{
			{"short", garrison.FileObject{Name: "s.bin", Size: 10}, pattern(9)},
			{"long", garrison.FileObject{Name: "l.bin", Size: 10}, pattern(11)},
			{"bad name", garrison.FileObject{Name: "a/b", Size: 1}, pattern(1)},
		} {
			wantErr(t, second(s.CreateObjectContent(ctx, tt.o, bytes.NewReader(tt.content))), garrison.ErrInvalid)
		}
		if list := ok(s.ListObjects(ctx)).get(t); len(list) != 0 {
			t.Fatalf("refused objects were recorded: %+v", list)
		}
	}},
	{"Objects/ContentLater", func(t *testing.T, _ Backend, s store.Store) {
		ctx := t.Context()
		o := ok(s.CreateObject(ctx, garrison.FileObject{Name: "old.bin", Size: 5})).get(t)
		if has := ok(s.HasObjectContent(ctx, o.ID)).get(t); has {
			t.Fatal("an object recorded without content has content")
		}
		wantErr(t, s.WriteObjectContent(ctx, o.ID, io.Discard), garrison.ErrNotFound)
		wantErr(t, s.SetObjectContent(ctx, o.ID, bytes.NewReader(pattern(4))), garrison.ErrInvalid)
		must(t, s.SetObjectContent(ctx, o.ID, bytes.NewReader(pattern(5))))
		var got bytes.Buffer
		must(t, s.WriteObjectContent(ctx, o.ID, &got))
		wantEqual(t, "content", got.String(), string(pattern(5)))
		wantErr(t, s.SetObjectContent(ctx, 99999, bytes.NewReader(nil)), garrison.ErrNotFound)
	}},
}

// pattern returns n bytes that differ from chunk to chunk.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i % 251)
	}
	return b
}
