package configref

import (
	"slices"
	"testing"
)

func TestParse(t *testing.T) {
	doc := "# title\n\n| `not` | a table |\n\n" +
		"## GARM settings garrison ignores\n\n| Setting | Why |\n|---|---|\n" +
		"| `[[github]]` | legacy |\n| `[default] config_dir` | data dir |\n| `[provider.lxd]` | x |\n\n" +
		"## `[default]`\n\n| Key | Type |\n|---|---|\n| `debug_server` | bool |\n" +
		"| `log_file`, `enable_log_streamer` | | legacy |\n\n" +
		"```toml\n| `fenced` | no |\n```\n\n" +
		"## `[[provider]]`\n\n| `name` | string |\n\n### `[provider.external]`\n\n| `config_file` | string |\n\n" +
		"## `[reconcile]` (garrison)\n\n| `resync_interval` | duration |\n\n## Full example\n\n| `after` | no |\n"
	got, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{"github", true}, {"default.config_dir", true}, {"provider.lxd", true},
		{"default.debug_server", false}, {"default.log_file", false}, {"default.enable_log_streamer", false},
		{"provider.name", false}, {"provider.external.config_file", false}, {"reconcile.resync_interval", false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Parse =\n%v\nwant\n%v", got, want)
	}
}

func TestParseRejectsBadIgnoredSetting(t *testing.T) {
	doc := "## GARM settings garrison ignores\n\n| `github tables` | x |\n"
	if _, err := Parse([]byte(doc)); err == nil {
		t.Error("parsed an ignored setting that names no table")
	}
}
