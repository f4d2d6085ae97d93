// The scale set create/edit form (rest-api-2.md §2.3, §2.4). A scale set's name, owner,
// provider and labels are given at creation; the edit form shows the labels and changes
// the rest.

import { h, replace, toast } from '../dom.js';
import * as api from '../api.js';
import { pageHeader, errorBox, field, form, notice } from '../ui.js';
import { navigate, BASE } from '../router.js';
import { entityOptions, parseTags, numberOr } from './pools.js';

const labelNames = (s) => (s.tags || []).map((t) => t.name);

export function scaleSetFormPage({ params, query }) {
  const editing = Boolean(params.id);
  const body = h('div', {}, h('p', { class: 'loading' }, 'Loading…'));
  const title = editing ? 'Edit scale set' : 'New scale set';
  const node = h('div', {}, pageHeader(title), body);
  (async () => {
    try {
      const [set, providers, entities, templates] = await Promise.all([
        editing ? api.get(`/scalesets/${api.enc(params.id)}`) : null,
        api.get('/providers'),
        editing ? [] : entityOptions(),
        api.optional('/templates'),
      ]);
      replace(body, scaleSetForm({ set, providers: providers || [], entities, templates, preselect: query.get('entity') }));
    } catch (e) {
      replace(body, errorBox(e));
    }
  })();
  return { title, node };
}

// createFields are the fields only a new scale set has.
function createFields(entities, providers, preselect) {
  return {
    entity: field({ label: 'Owner', name: 'entity', type: 'select', required: true, value: preselect || entities[0][0],
      options: entities, help: 'The repository, organization or enterprise the scale set registers with.' }),
    name: field({ label: 'Name', name: 'name', required: true,
      help: 'Also the label jobs name in runs-on to get a runner of this scale set.' }),
    provider: field({ label: 'Provider', name: 'provider_name', type: 'select', required: true,
      options: providers.map((x) => [x.name, x.description ? `${x.name} — ${x.description}` : x.name]) }),
    labels: field({ label: 'Extra labels', name: 'labels',
      help: 'Comma-separated, optional: labels the runners have besides the name. They cannot be changed later.' }),
  };
}

function scaleSetForm({ set, providers, entities, templates, preselect }) {
  const s = set || {};
  let only = {};
  if (!set) {
    if (entities.length === 0) {
      return notice('There is no repository, organization or enterprise yet: add one on the Entities page first.', 'warning');
    }
    only = createFields(entities, providers, preselect);
  }
  const f = {
    image: field({ label: 'Image', name: 'image', required: true, value: s.image, help: 'Passed to the provider as is.' }),
    flavor: field({ label: 'Flavor', name: 'flavor', required: true, value: s.flavor, help: 'Passed to the provider as is.' }),
    os_type: field({ label: 'OS type', name: 'os_type', type: 'select', value: s.os_type || 'linux', options: [['linux', 'Linux'], ['windows', 'Windows']] }),
    os_arch: field({ label: 'Architecture', name: 'os_arch', type: 'select', value: s.os_arch || 'amd64', options: [['amd64', 'amd64'], ['arm64', 'arm64'], ['arm', 'arm']] }),
    max_runners: field({ label: 'Maximum runners', name: 'max_runners', type: 'number', required: true, value: s.max_runners ?? 5, attrs: { min: '1', inputmode: 'numeric' } }),
    min_idle_runners: field({ label: 'Idle runners kept warm', name: 'min_idle_runners', type: 'number', value: s.min_idle_runners ?? 0, attrs: { min: '0', inputmode: 'numeric' } }),
    enabled: field({ label: 'Enabled', name: 'enabled', type: 'checkbox', value: set ? s.enabled : true }),
    runner_prefix: field({ label: 'Runner name prefix', name: 'runner_prefix', value: s.runner_prefix || 'garm' }),
    runner_bootstrap_timeout: field({ label: 'Bootstrap timeout (minutes)', name: 'runner_bootstrap_timeout', type: 'number', value: s.runner_bootstrap_timeout ?? 20, attrs: { min: '1', inputmode: 'numeric' } }),
    group: field({ label: 'Runner group', name: 'runner_group', value: s['github-runner-group'] || '', help: 'Empty: the Default group.' }),
    extra_specs: field({ label: 'Extra specs (JSON)', name: 'extra_specs', type: 'textarea', value: s.extra_specs ? JSON.stringify(s.extra_specs, null, 2) : '',
      help: 'Optional provider-specific settings, as a JSON object.' }),
  };
  let template = null;
  if (templates) {
    template = field({ label: 'Runner install template', name: 'template_id', type: 'select', value: s.template_id || '',
      options: [['', 'The default for the OS and forge'], ...templates.map((t) => [t.id, `${t.name} (${t.forge_type || 'any'}, ${t.os_type})`])] });
  }
  const fields = [...Object.values(only), ...Object.values(f)];
  if (template) fields.push(template);
  const extra = set ? [h('p', { class: 'help' }, `Labels: ${[s.name, ...labelNames(s)].join(', ')} (set at creation).`)] : [];
  return form({
    label: set ? 'Edit scale set' : 'New scale set', fields, extra, submitLabel: set ? 'Save the scale set' : 'Create the scale set',
    onSubmit: async (fd) => {
      let extraSpecs;
      const raw = String(fd.get('extra_specs') || '').trim();
      if (raw) {
        try { extraSpecs = JSON.parse(raw); } catch (e) {
          f.extra_specs.showError(`Not valid JSON: ${e.message}`);
          f.extra_specs.control.focus();
          return;
        }
      }
      const out = {
        image: String(fd.get('image')).trim(), flavor: String(fd.get('flavor')).trim(),
        os_type: fd.get('os_type'), os_arch: fd.get('os_arch'),
        max_runners: numberOr(fd.get('max_runners'), 1), min_idle_runners: numberOr(fd.get('min_idle_runners'), 0),
        enabled: fd.get('enabled') === 'on',
        runner_prefix: String(fd.get('runner_prefix') || '').trim() || undefined,
        runner_bootstrap_timeout: numberOr(fd.get('runner_bootstrap_timeout'), 20),
      };
      if (extraSpecs !== undefined) out.extra_specs = extraSpecs;
      if (template && fd.get('template_id')) out.template_id = Number(fd.get('template_id'));
      const group = String(fd.get('runner_group') || '').trim();
      let saved;
      if (set) {
        // The update names the group runner_group (rest-api-2 §2.4); empty leaves it.
        if (group) out.runner_group = group;
        saved = await api.put(`/scalesets/${api.enc(set.id)}`, out);
      } else {
        const [segment, id] = String(fd.get('entity')).split(':');
        out.name = String(fd.get('name')).trim();
        out.provider_name = fd.get('provider_name');
        const labels = parseTags(fd.get('labels'));
        if (labels.length) out.labels = labels;
        if (group) out['github-runner-group'] = group;
        saved = await api.post(`/${segment}/${api.enc(id)}/scalesets`, out);
      }
      toast(set ? 'Scale set saved.' : 'Scale set created.');
      navigate(`${BASE}scalesets/${saved.id}`);
    },
  });
}
