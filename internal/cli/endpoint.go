package cli

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// DefaultGiteaToolsMetadataURL is sent as tools_metadata_url by
// `gitea endpoint create` unless --tools-metadata-url is given.
const DefaultGiteaToolsMetadataURL = "https://gitea.com/api/v1/repos/gitea/runner/releases"

// forgeCmd is `github` or `gitea`, holding `endpoint` and `credentials`.
func (a *app) forgeCmd(f apiclient.Forge) *cobra.Command {
	title := forgeTitle(f)
	return group(string(f), "Manage "+title+" endpoints and credentials", nil,
		a.endpointCmd(f), a.credentialsCmd(f))
}

func forgeTitle(f apiclient.Forge) string {
	if f == apiclient.Gitea {
		return "Gitea"
	}
	return "GitHub"
}

// endpointCmd manages the endpoints of one forge.
func (a *app) endpointCmd(f apiclient.Forge) *cobra.Command {
	title := forgeTitle(f)
	list := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List " + title + " endpoints", Args: cobra.NoArgs})
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		eps, err := c.ListEndpoints(ctx, f)
		if err != nil {
			return err
		}
		return a.render(cmd, eps, func(w io.Writer) { endpointTable(w, f, eps) })
	})

	show := addFormat(&cobra.Command{Use: "show <name>", Aliases: []string{"get"}, Short: "Show a " + title + " endpoint", Args: cobra.ExactArgs(1)})
	show.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		ep, err := c.GetEndpoint(ctx, f, args[0])
		if err != nil {
			return err
		}
		return a.render(cmd, ep, func(w io.Writer) { writeFields(w, endpointFields(ep)) })
	})

	del := &cobra.Command{Use: "delete <name>", Aliases: []string{"remove", "rm"}, Short: "Delete a " + title + " endpoint", Args: cobra.ExactArgs(1)}
	del.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		return c.DeleteEndpoint(ctx, f, args[0])
	})

	create := addFormat(&cobra.Command{Use: "create", Aliases: []string{"add"}, Short: "Create a " + title + " endpoint", Args: cobra.NoArgs})
	update := addFormat(&cobra.Command{Use: "update <name>", Short: "Update a " + title + " endpoint (only the given flags are changed)", Args: cobra.ExactArgs(1)})
	create.Flags().String("name", "", "name of the endpoint")
	for _, cmd := range []*cobra.Command{create, update} {
		fl := cmd.Flags()
		fl.String("description", "", "description")
		fl.String("base-url", "", "base URL of the forge, for example https://github.example.com")
		fl.String("api-base-url", "", "API base URL")
		fl.String("ca-cert-path", "", "path to a PEM CA bundle for the forge")
		if f == apiclient.GitHub {
			fl.String("upload-url", "", "upload base URL")
		} else {
			def := ""
			if cmd == create {
				def = DefaultGiteaToolsMetadataURL
			}
			fl.String("tools-metadata-url", def, "URL of the act_runner releases")
			fl.Bool("use-internal-tools-metadata", false, "use the built-in act_runner release list")
		}
	}
	required := []string{"name", "base-url", "api-base-url"}
	if f == apiclient.GitHub {
		required = append(required, "upload-url")
	}
	for _, n := range required {
		_ = create.MarkFlagRequired(n)
	}
	create.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		ca, err := readOptionalFile(cmd, "ca-cert-path")
		if err != nil {
			return err
		}
		fl := cmd.Flags()
		name, _ := fl.GetString("name")
		desc, _ := fl.GetString("description")
		base, _ := fl.GetString("base-url")
		api, _ := fl.GetString("api-base-url")
		var ep apiv1.ForgeEndpoint
		if f == apiclient.GitHub {
			upload, _ := fl.GetString("upload-url")
			ep, err = c.CreateGithubEndpoint(ctx, apiv1.CreateGithubEndpointParams{
				Name: name, Description: desc, BaseURL: base, APIBaseURL: api, UploadBaseURL: upload, CACertBundle: ca,
			})
		} else {
			tools, _ := fl.GetString("tools-metadata-url")
			if tools == "" {
				tools = DefaultGiteaToolsMetadataURL
			}
			internal, _ := fl.GetBool("use-internal-tools-metadata")
			ep, err = c.CreateGiteaEndpoint(ctx, apiv1.CreateGiteaEndpointParams{
				Name: name, Description: desc, BaseURL: base, APIBaseURL: api, CACertBundle: ca,
				ToolsMetadataURL: tools, UseInternalToolsMetadata: &internal,
			})
		}
		if err != nil {
			return err
		}
		return a.render(cmd, ep, func(w io.Writer) { writeFields(w, endpointFields(ep)) })
	})
	update.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		if !anyChanged(cmd) {
			return fmt.Errorf("nothing to update: give at least one flag")
		}
		ca, err := readOptionalFile(cmd, "ca-cert-path")
		if err != nil {
			return err
		}
		var ep apiv1.ForgeEndpoint
		if f == apiclient.GitHub {
			ep, err = c.UpdateGithubEndpoint(ctx, args[0], apiv1.UpdateGithubEndpointParams{
				Description:   changedString(cmd, "description"),
				BaseURL:       changedString(cmd, "base-url"),
				APIBaseURL:    changedString(cmd, "api-base-url"),
				UploadBaseURL: changedString(cmd, "upload-url"),
				CACertBundle:  ca,
			})
		} else {
			ep, err = c.UpdateGiteaEndpoint(ctx, args[0], apiv1.UpdateGiteaEndpointParams{
				Description:              changedString(cmd, "description"),
				BaseURL:                  changedString(cmd, "base-url"),
				APIBaseURL:               changedString(cmd, "api-base-url"),
				ToolsMetadataURL:         changedString(cmd, "tools-metadata-url"),
				UseInternalToolsMetadata: changedBool(cmd, "use-internal-tools-metadata"),
				CACertBundle:             ca,
			})
		}
		if err != nil {
			return err
		}
		return a.render(cmd, ep, func(w io.Writer) { writeFields(w, endpointFields(ep)) })
	})
	return group("endpoint", "Manage "+title+" endpoints", []string{"endpoints"}, create, list, show, update, del)
}

// readOptionalFile returns the content of the file named by a path flag, or
// nil when the flag is empty.
func readOptionalFile(cmd *cobra.Command, flag string) ([]byte, error) {
	path, _ := cmd.Flags().GetString(flag)
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read --%s: %w", flag, err)
	}
	return data, nil
}

func endpointTable(w io.Writer, f apiclient.Forge, eps []apiv1.ForgeEndpoint) {
	header := []string{"NAME", "BASE URL", "API BASE URL", "DESCRIPTION"}
	if f == apiclient.GitHub {
		header = []string{"NAME", "BASE URL", "API BASE URL", "UPLOAD URL", "DESCRIPTION"}
	}
	rows := make([][]string, 0, len(eps))
	for _, e := range eps {
		if f == apiclient.GitHub {
			rows = append(rows, []string{e.Name, e.BaseURL, e.APIBaseURL, e.UploadBaseURL, e.Description})
		} else {
			rows = append(rows, []string{e.Name, e.BaseURL, e.APIBaseURL, e.Description})
		}
	}
	writeTable(w, header, rows)
}

func endpointFields(e apiv1.ForgeEndpoint) []field {
	fs := []field{
		{"Name", e.Name},
		{"Description", e.Description},
		{"Type", e.EndpointType},
		{"Base URL", e.BaseURL},
		{"API base URL", e.APIBaseURL},
	}
	if e.EndpointType != string(apiclient.Gitea) {
		fs = append(fs, field{"Upload URL", e.UploadBaseURL})
	} else {
		fs = append(fs, field{"Tools metadata URL", e.ToolsMetadataURL},
			field{"Use internal tools metadata", yesNo(e.UseInternalToolsMetadata)})
	}
	return append(fs,
		field{"CA certificate bundle", caSummary(e.CACertBundle)},
		field{"Created at", timeStr(e.CreatedAt)},
		field{"Updated at", timeStr(e.UpdatedAt)},
	)
}
