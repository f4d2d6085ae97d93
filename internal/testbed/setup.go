package testbed

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/garrison-ci/garrison"
	"github.com/garrison-ci/garrison/internal/apiclient"
	"github.com/garrison-ci/garrison/internal/apiv1"
)

// demoPool is one pool Setup creates.
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

// Setup does through the REST API what an administrator would (SetupRepo), and adds
// the demo's two pools to the repository.
func (b *Bed) Setup(ctx context.Context) error {
	repo, err := b.SetupRepo(ctx)
	if err != nil {
		return err
	}
	for _, p := range demoPools {
		pool, err := b.API.CreatePool(ctx, apiclient.Repositories, repo.ID, apiv1.CreatePoolParams{
			ProviderName: ProviderName, MaxRunners: p.max, MinIdleRunners: p.minIdle,
			Image: "demo", Flavor: p.flavor, OSType: "linux", OSArch: "amd64", Tags: p.tags, Enabled: true,
		})
		if err != nil {
			return fmt.Errorf("creating pool %s: %w", p.flavor, err)
		}
		b.PoolIDs = append(b.PoolIDs, pool.ID)
		fmt.Fprintf(b.out, "  pool %-11s tags %s, max %d, min idle %d\n", p.flavor, strings.Join(p.tags, ","), p.max, p.minIdle)
	}
	return b.addScaleSet(ctx, repo.ID)
}

// DemoScaleSet is the name (and runs-on label) of the demo's runner scale set.
const DemoScaleSet = "demo-scaleset"

// addScaleSet adds the demo's runner scale set next to the pools: its demand comes from
// the simulator's Actions service, not from webhooks.
func (b *Bed) addScaleSet(ctx context.Context, repoID string) error {
	_, err := b.AddScaleSet(ctx, repoID, apiv1.CreateScaleSetParams{
		Name: DemoScaleSet, MaxRunners: 4, MinIdleRunners: 0, Flavor: "small",
	})
	return err
}

// AddScaleSet adds an enabled runner scale set to the repository repoID (by default on
// the bed's provider, image "demo", linux/amd64) and records its id in ScaleSetIDs. Jobs whose runs-on is its name go to it.
func (b *Bed) AddScaleSet(ctx context.Context, repoID string, p apiv1.CreateScaleSetParams) (apiv1.ScaleSet, error) {
	p.ProviderName = cmp.Or(p.ProviderName, ProviderName)
	p.Image, p.OSType, p.OSArch = cmp.Or(p.Image, "demo"), cmp.Or(p.OSType, "linux"), cmp.Or(p.OSArch, "amd64")
	p.Enabled = true
	ss, err := b.API.CreateScaleSet(ctx, apiclient.Repositories, repoID, p)
	if err != nil {
		return ss, fmt.Errorf("creating scale set %s: %w", p.Name, err)
	}
	b.ScaleSetIDs = append(b.ScaleSetIDs, ss.ID)
	fmt.Fprintf(b.out, "  scale set %-6s runs-on %s, max %d, min idle %d\n", "", p.Name, ss.MaxRunners, ss.MinIdleRunners)
	return ss, nil
}

// SetupRepo does through the REST API what an administrator would: first run, login,
// controller URLs, the simulator as a GitHub endpoint, PAT credentials and the
// repository; and points the repository's webhook at the server. It returns the
// repository.
func (b *Bed) SetupRepo(ctx context.Context) (apiv1.Repository, error) {
	if err := b.Login(ctx); err != nil {
		return apiv1.Repository{}, err
	}
	hookURL, err := b.SetControllerURLs(ctx)
	if err != nil {
		return apiv1.Repository{}, err
	}
	repo, secret, err := b.AddRepository(ctx)
	if err != nil {
		return apiv1.Repository{}, err
	}
	if _, err := b.Sim.AddHook("repos/"+Repo, hookURL, secret, garrison.GitHub); err != nil {
		return apiv1.Repository{}, fmt.Errorf("adding the webhook: %w", err)
	}
	return repo, nil
}

// Login creates the administrator with a generated password and logs in.
func (b *Bed) Login(ctx context.Context) error {
	c, err := apiclient.New(b.URL, "")
	if err != nil {
		return err
	}
	password := "demo-" + RandomToken(24)
	if _, err := c.FirstRun(ctx, apiv1.NewUserParams{Username: "admin", Email: "admin@demo.invalid",
		FullName: "demo admin", Password: password}); err != nil {
		return fmt.Errorf("first run: %w", err)
	}
	tok, err := c.Login(ctx, apiv1.PasswordLoginParams{Username: "admin", Password: password})
	if err != nil {
		return fmt.Errorf("login: %w", err)
	}
	c.SetToken(tok)
	b.API, b.AdminUser, b.AdminPassword = c, "admin", password
	return nil
}

// SetControllerURLs points the metadata, callback and webhook URLs at the server and
// returns the controller's webhook URL.
func (b *Bed) SetControllerURLs(ctx context.Context) (string, error) {
	md, cb, wh := b.URL+apiclient.APIPrefix+"/metadata", b.URL+apiclient.APIPrefix+"/callbacks", b.URL+"/webhooks"
	info, err := b.API.UpdateController(ctx, apiv1.UpdateControllerParams{MetadataURL: &md, CallbackURL: &cb, WebhookURL: &wh})
	if err != nil {
		return "", fmt.Errorf("setting the controller URLs: %w", err)
	}
	b.ControllerID = info.ControllerID
	if info.ControllerWebhookURL == "" {
		return wh + "/" + info.ControllerID, nil
	}
	return info.ControllerWebhookURL, nil
}

// AddRepository adds the simulator endpoint, the PAT and the repository Repo; it
// returns the repository and its webhook secret.
func (b *Bed) AddRepository(ctx context.Context) (apiv1.Repository, string, error) {
	simURL := b.Sim.URL()
	if _, err := b.API.CreateGithubEndpoint(ctx, apiv1.CreateGithubEndpointParams{Name: Endpoint,
		Description: "forge simulator", BaseURL: simURL, APIBaseURL: simURL + "/api/v3/",
		UploadBaseURL: simURL + "/api/uploads/"}); err != nil {
		return apiv1.Repository{}, "", fmt.Errorf("creating the endpoint: %w", err)
	}
	if _, err := b.API.CreateCredentials(ctx, apiclient.GitHub, apiv1.CreateCredentialsParams{Name: Credentials,
		Description: "simulator PAT", Endpoint: Endpoint, AuthType: "pat",
		PAT: apiv1.GithubPAT{OAuth2Token: b.PAT}}); err != nil {
		return apiv1.Repository{}, "", fmt.Errorf("adding the credentials: %w", err)
	}
	secret := RandomToken(24)
	owner, name, _ := strings.Cut(Repo, "/")
	repo, err := b.API.CreateRepository(ctx, apiv1.CreateRepoParams{Owner: owner, Name: name,
		CredentialsName: Credentials, WebhookSecret: secret})
	if err != nil {
		return apiv1.Repository{}, "", fmt.Errorf("adding the repository: %w", err)
	}
	fmt.Fprintf(b.out, "  repository      %s (controller %s)\n", Repo, b.ControllerID)
	return repo, secret, nil
}
