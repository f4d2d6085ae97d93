package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// demoPool is one pool the demo creates.
type demoPool struct {
	flavor       string
	tags         []string
	max, minIdle uint
}

// demoPools are the two pools: small ones kept warm, large ones made on demand.
var demoPools = []demoPool{
	{flavor: "small", tags: []string{"self-hosted", "linux", "small"}, max: 8, minIdle: 1},
	{flavor: "large", tags: []string{"self-hosted", "linux", "large"}, max: 4, minIdle: 0},
}

// setup does through the REST API what an administrator would: first run, login,
// controller URLs, the simulator as a GitHub endpoint, PAT credentials, the repository
// and its pools; and points the repository's webhook at the server.
func (d *demo) setup(ctx context.Context) error {
	if err := d.login(ctx); err != nil {
		return err
	}
	hookURL, err := d.setControllerURLs(ctx)
	if err != nil {
		return err
	}
	repo, secret, err := d.addRepository(ctx)
	if err != nil {
		return err
	}
	if _, err := d.sim.AddHook("repos/"+demoRepo, hookURL, secret, garrison.GitHub); err != nil {
		return fmt.Errorf("adding the webhook: %w", err)
	}
	for _, p := range demoPools {
		pool, err := d.api.CreatePool(ctx, apiclient.Repositories, repo.ID, apiv1.CreatePoolParams{
			ProviderName: demoProviderName, MaxRunners: p.max, MinIdleRunners: p.minIdle,
			Image: "demo", Flavor: p.flavor, OSType: "linux", OSArch: "amd64", Tags: p.tags, Enabled: true,
		})
		if err != nil {
			return fmt.Errorf("creating pool %s: %w", p.flavor, err)
		}
		d.poolIDs = append(d.poolIDs, pool.ID)
		fmt.Fprintf(d.out, "  pool %-11s tags %s, max %d, min idle %d\n", p.flavor, strings.Join(p.tags, ","), p.max, p.minIdle)
	}
	return nil
}

// login creates the administrator with a generated password and logs in.
func (d *demo) login(ctx context.Context) error {
	c, err := apiclient.New(d.srv.url, "")
	if err != nil {
		return err
	}
	password := "demo-" + randomToken(24)
	if _, err := c.FirstRun(ctx, apiv1.NewUserParams{Username: "admin", Email: "admin@demo.invalid",
		FullName: "demo admin", Password: password}); err != nil {
		return fmt.Errorf("first run: %w", err)
	}
	tok, err := c.Login(ctx, apiv1.PasswordLoginParams{Username: "admin", Password: password})
	if err != nil {
		return fmt.Errorf("login: %w", err)
	}
	c.SetToken(tok)
	d.api = c
	return nil
}

// setControllerURLs points the metadata, callback and webhook URLs at the server and
// returns the controller's webhook URL.
func (d *demo) setControllerURLs(ctx context.Context) (string, error) {
	md, cb, wh := d.srv.url+apiclient.APIPrefix+"/metadata", d.srv.url+apiclient.APIPrefix+"/callbacks", d.srv.url+"/webhooks"
	info, err := d.api.UpdateController(ctx, apiv1.UpdateControllerParams{MetadataURL: &md, CallbackURL: &cb, WebhookURL: &wh})
	if err != nil {
		return "", fmt.Errorf("setting the controller URLs: %w", err)
	}
	d.ctrlID = info.ControllerID
	if info.ControllerWebhookURL == "" {
		return wh + "/" + info.ControllerID, nil
	}
	return info.ControllerWebhookURL, nil
}

// addRepository adds the simulator endpoint, the PAT and the repository; it returns the
// repository and its webhook secret.
func (d *demo) addRepository(ctx context.Context) (apiv1.Repository, string, error) {
	simURL := d.sim.URL()
	if _, err := d.api.CreateGithubEndpoint(ctx, apiv1.CreateGithubEndpointParams{Name: demoEndpoint,
		Description: "forge simulator", BaseURL: simURL, APIBaseURL: simURL + "/api/v3/",
		UploadBaseURL: simURL + "/api/uploads/"}); err != nil {
		return apiv1.Repository{}, "", fmt.Errorf("creating the endpoint: %w", err)
	}
	if _, err := d.api.CreateCredentials(ctx, apiclient.GitHub, apiv1.CreateCredentialsParams{Name: demoCredentials,
		Description: "simulator PAT", Endpoint: demoEndpoint, AuthType: "pat",
		PAT: apiv1.GithubPAT{OAuth2Token: d.pat}}); err != nil {
		return apiv1.Repository{}, "", fmt.Errorf("adding the credentials: %w", err)
	}
	secret := randomToken(24)
	owner, name, _ := strings.Cut(demoRepo, "/")
	repo, err := d.api.CreateRepository(ctx, apiv1.CreateRepoParams{Owner: owner, Name: name,
		CredentialsName: demoCredentials, WebhookSecret: secret})
	if err != nil {
		return apiv1.Repository{}, "", fmt.Errorf("adding the repository: %w", err)
	}
	fmt.Fprintf(d.out, "  repository      %s (controller %s)\n", demoRepo, d.ctrlID)
	return repo, secret, nil
}
