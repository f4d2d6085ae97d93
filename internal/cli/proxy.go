package cli

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// proxyFlags are the flags of proxy create and update, with the body key each sets.
var proxyFlags = []struct{ flag, usage string }{
	{"name", "name of the proxy"},
	{"description", "description"},
	{"http-proxy", "proxy URL for HTTP (http, https or socks5; no credentials in it)"},
	{"https-proxy", "proxy URL for HTTPS"},
	{"no-proxy", "hosts that bypass the proxy (comma separated, passed verbatim)"},
	{"username", "proxy user"},
	{"password", "proxy password (needs --username)"},
}

// resolveProxy turns a proxy argument into an id: a number is used as is, a name is
// matched case-insensitively against the list.
func resolveProxy(ctx context.Context, c *apiclient.Client, arg string) (uint, error) {
	if n, err := strconv.ParseUint(arg, 10, 0); err == nil {
		return uint(n), nil
	}
	ps, err := c.ListProxies(ctx)
	if err != nil {
		return 0, err
	}
	for _, p := range ps {
		if strings.EqualFold(p.Name, arg) {
			return p.ID, nil
		}
	}
	return 0, fmt.Errorf("proxy %q not found", arg)
}

func proxyFields(p apiv1.Proxy) []field {
	return []field{{"ID", strconv.FormatUint(uint64(p.ID), 10)}, {"Name", p.Name}, {"Description", p.Description},
		{"HTTP proxy", p.HTTPProxy}, {"HTTPS proxy", p.HTTPSProxy}, {"No proxy", p.NoProxy}, {"Username", p.Username},
		{"Created at", timeStr(p.CreatedAt)}, {"Updated at", timeStr(p.UpdatedAt)}}
}

// proxyCmd manages proxies (rest-api-2 §6.5).
func (a *app) proxyCmd() *cobra.Command {
	const argUse = "<id|name>"
	show := func(cmd *cobra.Command, p apiv1.Proxy) error {
		return a.render(cmd, p, func(w io.Writer) { writeFields(w, proxyFields(p)) })
	}

	create := addFormat(&cobra.Command{Use: "create", Aliases: []string{"add"}, Short: "Create a proxy", Args: cobra.NoArgs})
	for _, f := range proxyFlags {
		create.Flags().String(f.flag, "", f.usage)
	}
	_ = create.MarkFlagRequired("name")
	create.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		fl := cmd.Flags()
		var p apiv1.CreateProxyParams
		p.Name, _ = fl.GetString("name")
		p.Description, _ = fl.GetString("description")
		p.HTTPProxy, _ = fl.GetString("http-proxy")
		p.HTTPSProxy, _ = fl.GetString("https-proxy")
		p.NoProxy, _ = fl.GetString("no-proxy")
		p.Username, _ = fl.GetString("username")
		p.Password, _ = fl.GetString("password")
		px, err := c.CreateProxy(ctx, p)
		if err != nil {
			return err
		}
		return show(cmd, px)
	})

	list := addFormat(&cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "List proxies", Args: cobra.NoArgs})
	list.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, _ []string) error {
		ps, err := c.ListProxyObjects(ctx)
		if err != nil {
			return err
		}
		return a.render(cmd, ps, func(w io.Writer) {
			rows := make([][]string, 0, len(ps))
			for _, p := range ps {
				rows = append(rows, []string{strconv.FormatUint(uint64(p.ID), 10), p.Name, p.HTTPProxy, p.HTTPSProxy, p.NoProxy, p.Username})
			}
			writeTable(w, []string{"ID", "NAME", "HTTP PROXY", "HTTPS PROXY", "NO PROXY", "USERNAME"}, rows)
		})
	})

	get := addFormat(&cobra.Command{Use: "show " + argUse, Aliases: []string{"get"}, Short: "Show a proxy", Args: cobra.ExactArgs(1)})
	get.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveProxy(ctx, c, args[0])
		if err != nil {
			return err
		}
		px, err := c.GetProxy(ctx, id)
		if err != nil {
			return err
		}
		return show(cmd, px)
	})

	update := addFormat(&cobra.Command{Use: "update " + argUse, Short: "Update a proxy (only the given flags are sent; an empty value clears)", Args: cobra.ExactArgs(1)})
	for _, f := range proxyFlags {
		update.Flags().String(f.flag, "", f.usage)
	}
	update.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveProxy(ctx, c, args[0])
		if err != nil {
			return err
		}
		p := apiv1.UpdateProxyParams{Name: changedString(cmd, "name"), Description: changedString(cmd, "description"),
			HTTPProxy: changedString(cmd, "http-proxy"), HTTPSProxy: changedString(cmd, "https-proxy"),
			NoProxy: changedString(cmd, "no-proxy"), Username: changedString(cmd, "username"), Password: changedString(cmd, "password")}
		px, err := c.UpdateProxy(ctx, id, p)
		if err != nil {
			return err
		}
		return show(cmd, px)
	})

	remove := &cobra.Command{Use: "delete " + argUse, Aliases: []string{"remove", "rm", "del"}, Short: "Delete a proxy", Args: cobra.ExactArgs(1)}
	remove.RunE = a.withClient(func(ctx context.Context, cmd *cobra.Command, c *apiclient.Client, args []string) error {
		id, err := resolveProxy(ctx, c, args[0])
		if err != nil {
			return err
		}
		return c.DeleteProxy(ctx, id)
	})
	return group("proxy", "Manage proxies used by pools", []string{"proxies"}, create, list, get, update, remove)
}
