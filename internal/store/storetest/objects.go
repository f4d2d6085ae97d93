package storetest

import (
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
