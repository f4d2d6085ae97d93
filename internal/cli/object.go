package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// objectID parses an object id argument.
func objectIDArg(arg string) (uint, error) {
	n, err := strconv.ParseUint(arg, 10, 0)
	if err != nil {
		return 0, fmt.Errorf("invalid object id %q: want a number", arg)
	}
	return uint(n), nil
}

func objectFields(o apiv1.FileObject) []field {
	return []field{{"ID", strconv.FormatUint(uint64(o.ID), 10)}, {"Name", o.Name}, {"Description", o.Description},
		{"Size", strconv.FormatInt(o.Size, 10)}, {"File type", o.FileType}, {"SHA256", o.SHA256},
		{"Tags", strings.Join(o.Tags, ", ")}, {"Created at", timeStr(o.CreatedAt)}, {"Updated at", timeStr(o.UpdatedAt)}}
}

// objectCmd manages the object store (rest-api-2 §7.5).
func (a *app) objectCmd() *cobra.Command {
	show := func(cmd *cobra.Command, o apiv1.FileObject) error {
		return a.render(cmd, o, func(w io.Writer) { writeFields(w, objectFields(o)) })
	}

	create := addFormat(&cobra.Command{Use: "create", Aliases: []string{"upload", "add"}, Short: "Upload a file to the object store", Args: cobra.NoArgs})
	create.Flags().String("name", "", "name of the object (default: the file's base name)")
	create.Flags().String("path", "", "file to upload")
	create.Flags().String("description", "", "description")
	create.Flags().StringSlice("tags", nil, "tags (comma separated)")
	_ = create.MarkFlagRequired("path")
	create.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		fl := cmd.Flags()
		path, _ := fl.GetString("path")
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s is not a regular file", path)
		}
		name, _ := fl.GetString("name")
		if name == "" {
			name = filepath.Base(path)
		}
		desc, _ := fl.GetString("description")
		tags, _ := fl.GetStringSlice("tags")
		o, err := c.UploadObject(ctx, name, desc, tags, f, st.Size())
		if err != nil {
			return err
		}
		return show(cmd, o)
	})

	list := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List objects", Args: cobra.NoArgs})
	list.Flags().StringSlice("tags", nil, "only objects with all of these tags")
	list.Flags().Int("page", 0, "page (from 1)")
	list.Flags().Int("page-size", 25, "objects per page")
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		tags, _ := cmd.Flags().GetStringSlice("tags")
		page, _ := cmd.Flags().GetInt("page")
		size, _ := cmd.Flags().GetInt("page-size")
		pg, err := c.ListObjects(ctx, page, size, tags)
		if err != nil {
			return err
		}
		return a.render(cmd, pg, func(w io.Writer) {
			rows := make([][]string, 0, len(pg.Results))
			for _, o := range pg.Results {
				rows = append(rows, []string{strconv.FormatUint(uint64(o.ID), 10), o.Name, strconv.FormatInt(o.Size, 10), o.FileType, strings.Join(o.Tags, ",")})
			}
			writeTable(w, []string{"ID", "NAME", "SIZE", "FILE TYPE", "TAGS"}, rows)
			fmt.Fprintf(w, "page %d of %d, %d objects\n", pg.CurrentPage, pg.Pages, pg.TotalCount)
		})
	})

	get := addFormat(&cobra.Command{Use: "show <id>", Aliases: []string{"get"}, Short: "Show an object", Args: cobra.ExactArgs(1)})
	get.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := objectIDArg(args[0])
		if err != nil {
			return err
		}
		o, err := c.GetObject(ctx, id)
		if err != nil {
			return err
		}
		return show(cmd, o)
	})

	update := addFormat(&cobra.Command{Use: "update <id>", Short: "Change an object's name, description or tags", Args: cobra.ExactArgs(1)})
	update.Flags().String("name", "", "new name")
	update.Flags().String("description", "", "new description")
	update.Flags().StringSlice("tags", nil, "new tags (replace the old ones)")
	update.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := objectIDArg(args[0])
		if err != nil {
			return err
		}
		p := apiv1.UpdateFileObjectParams{Name: changedString(cmd, "name"), Description: changedString(cmd, "description")}
		p.Tags, _ = cmd.Flags().GetStringSlice("tags")
		o, err := c.UpdateObject(ctx, id, p)
		if err != nil {
			return err
		}
		return show(cmd, o)
	})

	download := &cobra.Command{Use: "download <id>", Short: "Download an object", Args: cobra.ExactArgs(1)}
	download.Flags().String("out-file", "", "where to write it (default: the object's name, in the current directory)")
	download.Flags().Bool("force-overwrite", false, "replace an existing file")
	download.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := objectIDArg(args[0])
		if err != nil {
			return err
		}
		out, _ := cmd.Flags().GetString("out-file")
		if out == "" {
			o, err := c.GetObject(ctx, id)
			if err != nil {
				return err
			}
			out = filepath.Base(o.Name) // the server refuses names with a path; Base keeps it so
		}
		force, _ := cmd.Flags().GetBool("force-overwrite")
		return downloadTo(ctx, c, id, out, force)
	})

	remove := &cobra.Command{Use: "remove <id>", Aliases: []string{"delete", "rm", "del"}, Short: "Remove an object", Args: cobra.ExactArgs(1)}
	remove.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := objectIDArg(args[0])
		if err != nil {
			return err
		}
		return c.DeleteObject(ctx, id)
	})
	return group("object", "Manage the object store", []string{"objects"}, create, list, get, update, download, remove)
}

// downloadTo streams object id into path through a temporary file, renamed on success,
// so a failed download leaves nothing half-written.
func downloadTo(ctx context.Context, c *apiclient.Client, id uint, path string, force bool) error {
	if _, err := os.Stat(path); err == nil && !force {
		return fmt.Errorf("%s exists; use --force-overwrite to replace it", path)
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".download-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := c.DownloadObject(ctx, id, tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
