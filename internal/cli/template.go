package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// maxTemplateFile is the largest template file the CLI sends (as garm-cli).
const maxTemplateFile = 1 << 20

// templateCmd manages runner install templates (rest-api-2.md §3.7).
func (a *app) templateCmd() *cobra.Command {
	return group("template", "Manage runner install templates", []string{"templates"},
		a.templateListCmd(), a.templateShowCmd(), a.templateCreateCmd(), a.templateUpdateCmd(),
		a.templateCopyCmd(), a.templateDownloadCmd(), a.templateDeleteCmd(), a.templateRestoreCmd())
}

// resolveTemplate turns a template id or exact name into an id; a name is looked up with
// GET /templates?partialName= and must match exactly one template.
func resolveTemplate(ctx context.Context, c *apiclient.Client, v string) (uint, error) {
	if n, err := strconv.ParseUint(v, 10, 0); err == nil {
		return uint(n), nil
	}
	ts, err := c.ListTemplatesFull(ctx, apiclient.TemplateFilter{PartialName: v})
	if err != nil {
		return 0, fmt.Errorf("looking up template %q: %w", v, err)
	}
	var found []apiv1.Template
	for _, t := range ts {
		if t.Name == v {
			found = append(found, t)
		}
	}
	switch len(found) {
	case 0:
		return 0, fmt.Errorf("template %q not found", v)
	case 1:
		return found[0].ID, nil
	}
	return 0, fmt.Errorf("multiple templates found with name: %s", v)
}

// readTemplateFile reads a template file, refusing one over 1 MiB or empty.
func readTemplateFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.Size() > maxTemplateFile {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, maxTemplateFile)
	}
	data, err := os.ReadFile(path)
	if err == nil && len(data) == 0 {
		err = fmt.Errorf("%s is empty", path)
	}
	return data, err
}

func checkForgeOS(forge, osType string) error {
	if forge != "github" && forge != "gitea" {
		return fmt.Errorf("invalid --forge-type %q: want github or gitea", forge)
	}
	if osType != "linux" && osType != "windows" {
		return fmt.Errorf("invalid --os-type %q: want linux or windows", osType)
	}
	return nil
}

func templateTable(w io.Writer, ts []apiv1.Template) {
	rows := make([][]string, 0, len(ts))
	for _, t := range ts {
		rows = append(rows, []string{uintStr(t.ID), t.Name, t.Description, t.ForgeType, t.OSType, t.Owner})
	}
	writeTable(w, []string{"ID", "NAME", "DESCRIPTION", "FORGE TYPE", "OS TYPE", "OWNER"}, rows)
}

func templateFields(t apiv1.Template) []field {
	return []field{{"ID", uintStr(t.ID)}, {"Name", t.Name}, {"Description", t.Description},
		{"Forge Type", t.ForgeType}, {"OS Type", t.OSType}, {"Owner", t.Owner},
		{"Created At", timeStr(t.CreatedAt)}, {"Updated At", timeStr(t.UpdatedAt)}, {"Data", string(t.Data)}}
}

// templateListCmd: GET /templates with the filters given.
func (a *app) templateListCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List runner install templates", Args: cobra.NoArgs})
	cmd.Flags().String("name", "", "only templates whose name contains this (case-insensitive)")
	cmd.Flags().String("os-type", "", "only templates of this OS type")
	cmd.Flags().String("forge-type", "", "only templates of this forge type")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		var f apiclient.TemplateFilter
		f.PartialName, _ = cmd.Flags().GetString("name")
		f.OSType, _ = cmd.Flags().GetString("os-type")
		f.ForgeType, _ = cmd.Flags().GetString("forge-type")
		ts, err := c.ListTemplatesFull(ctx, f)
		if err != nil {
			return err
		}
		return a.render(cmd, ts, func(w io.Writer) { templateTable(w, ts) })
	})
	return cmd
}

// templateShowCmd: resolve; GET /templates/{id}.
func (a *app) templateShowCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "show <name|id>", Aliases: []string{"get"}, Short: "Show a runner install template and its content", Args: cobra.ExactArgs(1)})
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveTemplate(ctx, c, args[0])
		if err != nil {
			return err
		}
		t, err := c.GetTemplate(ctx, id)
		if err != nil {
			return err
		}
		return a.render(cmd, t, func(w io.Writer) { writeFields(w, templateFields(t)) })
	})
	return cmd
}

// templateCreateCmd: POST /templates with the file's content.
func (a *app) templateCreateCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "create", Aliases: []string{"add"}, Short: "Create a runner install template from a file", Args: cobra.NoArgs})
	fl := cmd.Flags()
	fl.String("name", "", "template name")
	fl.String("description", "", "template description")
	fl.String("path", "", "file holding the template (text/template syntax)")
	fl.String("forge-type", "", "forge type: github or gitea")
	fl.String("os-type", "", "OS type: linux or windows")
	for _, n := range []string{"name", "path", "forge-type", "os-type"} {
		_ = cmd.MarkFlagRequired(n)
	}
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		var p apiv1.CreateTemplateParams
		p.Name, _ = fl.GetString("name")
		p.Description, _ = fl.GetString("description")
		p.ForgeType, _ = fl.GetString("forge-type")
		p.OSType, _ = fl.GetString("os-type")
		if err := checkForgeOS(p.ForgeType, p.OSType); err != nil {
			return err
		}
		path, _ := fl.GetString("path")
		var err error
		if p.Data, err = readTemplateFile(path); err != nil {
			return err
		}
		t, err := c.CreateTemplate(ctx, p)
		if err != nil {
			return err
		}
		t.Data = nil
		return a.render(cmd, t, func(w io.Writer) { writeFields(w, templateFields(t)) })
	})
	return cmd
}

// templateUpdateCmd: resolve; PUT /templates/{id} with the given flags.
func (a *app) templateUpdateCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "update <name|id>", Short: "Update a runner install template", Args: cobra.ExactArgs(1)})
	fl := cmd.Flags()
	fl.String("name", "", "new name")
	fl.String("description", "", "new description")
	fl.String("path", "", "file holding the new content")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		if !anyChanged(cmd) {
			return errors.New("nothing to update: give at least one of --name, --description, --path")
		}
		id, err := resolveTemplate(ctx, c, args[0])
		if err != nil {
			return err
		}
		var p apiv1.UpdateTemplateParams
		if fl.Changed("name") {
			v, _ := fl.GetString("name")
			p.Name = &v
		}
		if fl.Changed("description") {
			v, _ := fl.GetString("description")
			p.Description = &v
		}
		if path, _ := fl.GetString("path"); path != "" {
			if p.Data, err = readTemplateFile(path); err != nil {
				return err
			}
		}
		t, err := c.UpdateTemplate(ctx, id, p)
		if err != nil {
			return err
		}
		t.Data = nil
		return a.render(cmd, t, func(w io.Writer) { writeFields(w, templateFields(t)) })
	})
	return cmd
}

// templateCopyCmd: GET the source; POST a new template with its content.
func (a *app) templateCopyCmd() *cobra.Command {
	cmd := addFormat(&cobra.Command{Use: "copy <source name|id> <new name>", Short: "Copy a runner install template under a new name", Args: cobra.ExactArgs(2)})
	cmd.Flags().String("description", "", "description of the copy (default: the source's)")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveTemplate(ctx, c, args[0])
		if err != nil {
			return err
		}
		src, err := c.GetTemplate(ctx, id)
		if err != nil {
			return err
		}
		p := apiv1.CreateTemplateParams{Name: args[1], Description: src.Description, Data: src.Data,
			OSType: src.OSType, ForgeType: src.ForgeType}
		if cmd.Flags().Changed("description") {
			p.Description, _ = cmd.Flags().GetString("description")
		}
		t, err := c.CreateTemplate(ctx, p)
		if err != nil {
			return err
		}
		t.Data = nil
		return a.render(cmd, t, func(w io.Writer) { writeFields(w, templateFields(t)) })
	})
	return cmd
}

// templateDownloadCmd: GET /templates/{id}; write the content to a new file.
func (a *app) templateDownloadCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "download <name|id>", Short: "Write a runner install template's content to a file", Args: cobra.ExactArgs(1)}
	cmd.Flags().String("path", "", "file to create (must not exist)")
	_ = cmd.MarkFlagRequired("path")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveTemplate(ctx, c, args[0])
		if err != nil {
			return err
		}
		t, err := c.GetTemplate(ctx, id)
		if err != nil {
			return err
		}
		path, _ := cmd.Flags().GetString("path")
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(t.Data); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	})
	return cmd
}

// templateDeleteCmd: resolve; DELETE /templates/{id}.
func (a *app) templateDeleteCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "delete <name|id>", Aliases: []string{"rm", "remove"}, Short: "Delete a runner install template", Args: cobra.ExactArgs(1)}
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveTemplate(ctx, c, args[0])
		if err != nil {
			return err
		}
		return c.DeleteTemplate(ctx, id)
	})
	return cmd
}

// templateRestoreCmd: POST /templates/restore, one pair or all.
func (a *app) templateRestoreCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "restore", Short: "Restore the system templates' built-in content (all, or one forge/OS pair)", Args: cobra.NoArgs}
	cmd.Flags().String("forge-type", "", "forge type of the template to restore")
	cmd.Flags().String("os-type", "", "OS type of the template to restore")
	cmd.MarkFlagsRequiredTogether("forge-type", "os-type")
	cmd.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		var r apiv1.RestoreTemplateRequest
		r.Forge, _ = cmd.Flags().GetString("forge-type")
		r.OSType, _ = cmd.Flags().GetString("os-type")
		r.RestoreAll = strings.TrimSpace(r.Forge) == "" && strings.TrimSpace(r.OSType) == ""
		return c.RestoreTemplates(ctx, r)
	})
	return cmd
}
