package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison/internal/apiclient"
)

// The listers of the objects arguments and flags name.

func listPools(ctx context.Context, c *apiclient.Client) ([]string, error) {
	pools, err := c.ListPools(ctx)
	out := make([]string, 0, len(pools))
	for _, p := range pools {
		owner := p.RepoName
		if owner == "" {
			owner = p.OrgName + p.EnterpriseName
		}
		tags := make([]string, 0, len(p.Tags))
		for _, t := range p.Tags {
			tags = append(tags, t.Name)
		}
		out = append(out, candidate(p.ID, owner, p.ProviderName, p.Flavor, strings.Join(tags, ",")))
	}
	return out, err
}

func listRunners(ctx context.Context, c *apiclient.Client) ([]string, error) {
	insts, err := c.ListInstances(ctx)
	out := make([]string, 0, len(insts))
	for _, in := range insts {
		out = append(out, candidate(in.Name, string(in.Status), string(in.RunnerStatus)))
	}
	return out, err
}

func listRepos(ctx context.Context, c *apiclient.Client) ([]string, error) {
	repos, err := c.ListRepositories(ctx, apiclient.RepoFilter{})
	out := make([]string, 0, len(repos))
	for _, r := range repos {
		out = append(out, candidate(r.Owner+"/"+r.Name, r.ID, r.Endpoint.Name))
	}
	return out, err
}

func listOrgs(ctx context.Context, c *apiclient.Client) ([]string, error) {
	orgs, err := c.ListOrganizations(ctx, apiclient.EntityFilter{})
	out := make([]string, 0, len(orgs))
	for _, o := range orgs {
		out = append(out, candidate(o.Name, o.ID, o.Endpoint.Name))
	}
	return out, err
}

func listEnterprises(ctx context.Context, c *apiclient.Client) ([]string, error) {
	ents, err := c.ListEnterprises(ctx, apiclient.EntityFilter{})
	out := make([]string, 0, len(ents))
	for _, e := range ents {
		out = append(out, candidate(e.Name, e.ID, e.Endpoint.Name))
	}
	return out, err
}

func listProviders(ctx context.Context, c *apiclient.Client) ([]string, error) {
	ps, err := c.ListProviders(ctx)
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, candidate(p.Name, p.Description))
	}
	return out, err
}

// credentialsOf lists the credentials of the given forges, by name.
func credentialsOf(forges ...apiclient.Forge) lister {
	return func(ctx context.Context, c *apiclient.Client) ([]string, error) {
		var out []string
		for _, f := range forges {
			creds, err := c.ListCredentials(ctx, f)
			if err != nil {
				return out, err
			}
			for _, cr := range creds {
				out = append(out, candidate(cr.Name, string(f), fmt.Sprintf("id %d", cr.ID), cr.Endpoint.Name))
			}
		}
		return out, nil
	}
}

// endpointsOf lists the endpoints of the given forges, by name.
func endpointsOf(forges ...apiclient.Forge) lister {
	return func(ctx context.Context, c *apiclient.Client) ([]string, error) {
		var out []string
		for _, f := range forges {
			eps, err := c.ListEndpoints(ctx, f)
			if err != nil {
				return out, err
			}
			for _, e := range eps {
				out = append(out, candidate(e.Name, string(f), e.BaseURL))
			}
		}
		return out, nil
	}
}
