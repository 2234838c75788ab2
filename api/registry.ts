// The endpoint registry: every route of the API with a stable number, method, path and
// scope. RBAC grants refer to these numbers, and the 403 text is built from this table.
// Numbers never change once released; new endpoints take new numbers.
//   User    – acts on the caller's own record; needs no grant (access rule 1)
//   Company – needs a grant from a company role (project roles cannot grant it, rule 4)
//   Project – needs a grant from a company role or a role of the project named in the request
import type { Scope } from '../catalog/types.ts'

export type EndpointScope = 'User' | 'Company' | 'Project'
export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

export interface Endpoint {
  number: number
  method: Method
  path: string
  scope: EndpointScope
  summary: string
}

const e = (number: number, method: Method, path: string, scope: EndpointScope, summary: string): Endpoint =>
  ({ number, method, path, scope, summary })

export const endpoints: readonly Endpoint[] = [
  e(1, 'GET', '/v2/user', 'User', 'The caller with its project and company roles'),
  e(2, 'PUT', '/v2/user', 'User', 'Change the caller\'s own account'),
  e(3, 'DELETE', '/v2/user', 'User', 'Delete the caller\'s own account'),
  e(4, 'GET', '/v2/user/projects', 'User', 'Projects the caller holds a role in (all projects with a company role)'),
  e(5, 'GET', '/v2/endpoints', 'User', 'This list of endpoints with their numbers'),
  e(6, 'POST', '/v2/auth/token', 'User', 'Exchange a login (HTTP Basic) for a bearer token'),
  e(7, 'DELETE', '/v2/auth/token', 'User', 'Revoke the bearer token used for this call'),

  e(8, 'GET', '/v2/system/metrics', 'Company', 'Counters of the ingest path: MQTT broker, ingest queue, lines stored and dropped'),
  e(10, 'GET', '/v2/company', 'Company', 'The caller\'s company with its projects and users'),
  e(11, 'POST', '/v2/company/project', 'Company', 'Create a project'),
  e(12, 'POST', '/v2/project', 'Company', 'Create a project (same as 11)'),
  e(13, 'POST', '/v2/company/user', 'Company', 'Create a user in the caller\'s company'),
  e(14, 'GET', '/v2/company/roles', 'Company', 'List company roles'),
  e(15, 'POST', '/v2/company/role', 'Company', 'Create a company role'),
  e(16, 'GET', '/v2/company/role/{role_id}', 'Company', 'Read a company role'),
  e(17, 'PUT', '/v2/company/role/{role_id}', 'Company', 'Change a company role'),
  e(18, 'DELETE', '/v2/company/role/{role_id}', 'Company', 'Delete a company role'),
  e(19, 'POST', '/v2/company/role/{role_id}/user/{user_id}', 'Company', 'Assign a company role to a user'),
  e(20, 'DELETE', '/v2/company/role/{role_id}/user/{user_id}', 'Company', 'Unassign a company role from a user'),

  e(30, 'GET', '/v2/project/{project_id}', 'Project', 'A project with its datapoints'),
  e(31, 'PUT', '/v2/project/{project_id}', 'Project', 'Change a project'),
  e(32, 'DELETE', '/v2/project/{project_id}', 'Project', 'Delete a project with its roles, datapoints and data'),
  e(33, 'GET', '/v2/project/{project_id}/roles', 'Project', 'List the project\'s roles'),
  e(34, 'POST', '/v2/project/{project_id}/role', 'Project', 'Create a project role'),
  e(35, 'GET', '/v2/project/{project_id}/role/{role_id}', 'Project', 'Read a project role'),
  e(36, 'PUT', '/v2/project/{project_id}/role/{role_id}', 'Project', 'Change a project role'),
  e(37, 'DELETE', '/v2/project/{project_id}/role/{role_id}', 'Project', 'Delete a project role'),
  e(38, 'POST', '/v2/project/{project_id}/role/{role_id}/tagauth', 'Project', 'Add a TagAuth to a project role'),
  e(39, 'DELETE', '/v2/project/{project_id}/role/{role_id}/tagauth/{tagauth_id}', 'Project', 'Remove a TagAuth from a project role'),
  e(40, 'POST', '/v2/project/{project_id}/role/{role_id}/user/{user_id}', 'Project', 'Assign a project role to a user'),
  e(41, 'DELETE', '/v2/project/{project_id}/role/{role_id}/user/{user_id}', 'Project', 'Unassign a project role from a user'),

  e(50, 'POST', '/v2/project/{project_id}/timeseries', 'Project', 'Store observations given as JSON, keyed by datapoint identifier'),
  e(51, 'POST', '/v2/project/{project_id}/importTimeseries', 'Project', 'Import observations from a CSV file (multipart upload)'),
  e(53, 'POST', '/v2/project/{project_id}/importTimeseries/{format}', 'Project', 'Import observations from a CSV file, format in the path (otherwise as 51)'),
  e(52, 'GET', '/v2/datapoint/timeseries', 'Project', 'Read observations of a datapoint, raw or down-sampled'),

  e(60, 'POST', '/v2/project/{project_id}/mqttuser', 'Project', 'Create a short-lived MQTT account'),
  e(61, 'PUT', '/v2/project/{project_id}/mqttuser/{mqttuser_id}', 'Project', 'Change an MQTT account or extend its validity'),
  e(62, 'GET', '/v2/project/{project_id}/mqttusers', 'Project', 'List the project\'s MQTT accounts'),
  e(63, 'GET', '/v2/project/{project_id}/mqttuser/{mqttuser_id}', 'Project', 'Read an MQTT account'),
  e(64, 'DELETE', '/v2/project/{project_id}/mqttuser/{mqttuser_id}', 'Project', 'Delete an MQTT account and end its connections'),

  e(70, 'POST', '/v2/project/{project_id}/virtual_datapoint', 'Project', 'Create a virtual datapoint'),
  e(71, 'POST', '/v2/project/{project_id}/virtual_datapoint/run', 'Project', 'Start (run=true) or stop (run=false) a virtual datapoint'),
  e(72, 'PUT', '/v2/project/{project_id}/virtual_datapoint', 'Project', 'Change the description of a virtual datapoint'),
  e(73, 'DELETE', '/v2/project/{project_id}/virtual_datapoint', 'Project', 'Delete a stopped virtual datapoint'),
  e(74, 'GET', '/v2/project/{project_id}/virtual_datapoint', 'Project', 'Read a virtual datapoint with its log'),
  e(75, 'GET', '/v2/project/{project_id}/virtual_datapoints', 'Project', 'List virtual datapoints: search, filter by status_code, pages'),
  e(76, 'POST', '/v2/project/{project_id}/virtual_datapoint/replay', 'Project', 'Recompute a virtual datapoint over a time range from its stored inputs, replacing its outputs there'),

  // Documents (spec 1 "Documents"): the company space, then the same six for a project space.
  e(80, 'GET', '/v2/company/quota', 'Company', 'Quota of the company file space: limits, use, what is available'),
  e(81, 'POST', '/v2/company/file', 'Company', 'Upload a new file to the company space (multipart field file; folder created if missing)'),
  e(82, 'GET', '/v2/company/files', 'Company', 'List files of the company space: search in paths, pages'),
  e(83, 'GET', '/v2/company/file', 'Company', 'An expiring download link of a company file, served by the storage'),
  e(84, 'PUT', '/v2/company/file', 'Company', 'Replace an existing company file'),
  e(85, 'DELETE', '/v2/company/file', 'Company', 'Delete a company file or folder'),
  e(90, 'GET', '/v2/project/{project_id}/quota', 'Project', 'Quota of the project file space: limits, use, what is available'),
  e(91, 'POST', '/v2/project/{project_id}/file', 'Project', 'Upload a new file to the project space (multipart field file; folder created if missing)'),
  e(92, 'GET', '/v2/project/{project_id}/files', 'Project', 'List files of the project space: search in paths, pages'),
  e(93, 'GET', '/v2/project/{project_id}/file', 'Project', 'An expiring download link of a project file, served by the storage'),
  e(94, 'PUT', '/v2/project/{project_id}/file', 'Project', 'Replace an existing project file'),
  e(95, 'DELETE', '/v2/project/{project_id}/file', 'Project', 'Delete a project file or folder'),
  // Alerts (spec 3 "Further endpoints", issue 13): block 100-109. Routes under /v2/alert take
  // the project as the query parameter project_id, like endpoint 52.
  e(100, 'POST', '/v2/alert/threshold', 'Project', 'Create a threshold alert on a datapoint (levels info, warn, crit)'),
  e(101, 'POST', '/v2/alert/throughput', 'Project', 'Create a throughput alert (fewer than N observations within a window)'),
  e(102, 'POST', '/v2/alert/{alert_id}/enable', 'Project', 'Enable an alert'),
  e(103, 'POST', '/v2/alert/{alert_id}/disable', 'Project', 'Disable an alert (a raised alert is reset)'),
  e(104, 'DELETE', '/v2/alert/{alert_id}', 'Project', 'Delete an alert with its events'),
  e(105, 'GET', '/v2/project/{project_id}/alerts', 'Project', 'List alerts: pages, filter (level, enabled, dataPointID), search, sort'),
  e(106, 'PUT', '/v2/project/{project_id}/alert/{alert_id}', 'Project', 'Refused: in-place modification of alerts is no longer supported (delete and recreate)'),
  e(107, 'GET', '/v2/project/{project_id}/alert/{alert_id}', 'Project', 'Read an alert with its current state'),
  e(108, 'GET', '/v2/project/{project_id}/alert/{alert_id}/events', 'Project', 'The raises, resets, acknowledgements and clears of an alert, newest first, in pages'),
  // Component library (spec 3 "Component models", issue 12): block 110-112. Global reference
  // data, the same for every company: User scope (any authenticated user, no grant).
  e(110, 'GET', '/v2/components', 'User', 'The abstract components of the library'),
  e(111, 'GET', '/v2/component/{component_id}/pins', 'User', 'The pin placeholders of an abstract component, with their L1-L5 attributes'),
  e(112, 'GET', '/v2/component/{component_id}/attributeDefinitions', 'User', 'The attribute definitions of an abstract component'),
  // Mapped components (spec 3 "Mapped components", issue 12): block 113-125.
  e(113, 'GET', '/v2/project/{project_id}/componentsInProject', 'Project', 'The mapped components of the project'),
  e(114, 'GET', '/v2/project/{project_id}/componentInProject/{componentinproject_id}', 'Project', 'A mapped component with its pins (and their datapoints), attributes and tags'),
  e(115, 'PUT', '/v2/project/{project_id}/componentInProject/{componentinproject_id}', 'Project', 'Change the display name or tags of a mapped component'),
  e(116, 'DELETE', '/v2/project/{project_id}/componentInProject/{componentinproject_id}', 'Project', 'Delete a mapped component with its mappings, analysis instances and results'),
  e(117, 'POST', '/v2/project/{project_id}/componentInProject', 'Project', 'Instantiate an abstract component into the project'),
  e(118, 'POST', '/v2/project/{project_id}/componentInProject/pin/datapoint', 'Project', 'Map datapoints to unmapped pins'),
  e(119, 'PUT', '/v2/project/{project_id}/componentInProject/pin/datapoint', 'Project', 'Map datapoints to pins, replacing existing mappings'),
  e(120, 'DELETE', '/v2/project/{project_id}/componentInProject/pin/datapoint', 'Project', 'Unmap a pin'),
  e(121, 'POST', '/v2/project/{project_id}/componentInProject/attribute', 'Project', 'Fill attributes that have no value yet'),
  e(122, 'PUT', '/v2/project/{project_id}/componentInProject/attribute', 'Project', 'Set attributes, replacing existing values'),
  e(123, 'DELETE', '/v2/project/{project_id}/componentInProject/attribute', 'Project', 'Clear an attribute'),
  e(124, 'GET', '/v2/project/{project_id}/componentInProject/{componentinproject_id}/suggestions', 'Project', 'Datapoints of the project ranked per pin from their unit and name'),
  // Analysis (spec 3 "Analysis", issue 12): block 150-169. Routes under /v2/analytics take the
  // project as the query parameter project_id; the function list is global (User scope).
  e(150, 'GET', '/v2/analytics/functions', 'User', 'The analysis functions, optionally those applicable to a component'),
  e(151, 'POST', '/v2/analytics/instance', 'Project', 'Create an analysis instance: one per analysis function and mapped component'),
  e(152, 'GET', '/v2/analytics/instance/{instance_id}', 'Project', 'Read an analysis instance'),
  e(153, 'GET', '/v2/analytics/instances', 'Project', 'The analysis instances of the project'),
  e(154, 'POST', '/v2/analytics/instance/{instance_id}/run', 'Project', 'Run an analysis instance on a time range [start, end): one new result'),
  e(155, 'GET', '/v2/analytics/componentsInProject', 'Project', 'The latest result of every instance, grouped by mapped component'),
  e(156, 'GET', '/v2/analytics/componentInProject/{componentinproject_id}/results', 'Project', 'A mapped component with its instances and all their results'),
  e(157, 'GET', '/v2/analytics/results', 'Project', 'The most recent result of every instance in full, grouped by mapped component'),
  e(158, 'GET', '/v2/analytics/instance/{instance_id}/results', 'Project', 'All results of an analysis instance'),
  e(159, 'GET', '/v2/analytics/instance/{instance_id}/result/{result_id}', 'Project', 'A result in full, in English or German (result_language)'),
  e(160, 'PUT', '/v2/analytics/instance/{instance_id}', 'Project', 'Change the name, description or enabling of an analysis instance'),
  e(161, 'DELETE', '/v2/analytics/instance/{instance_id}', 'Project', 'Delete an analysis instance with its results'),
  // Setpoints (issue 11): block 140-149
  e(140, 'PUT', '/v2/datapoint', 'Project', 'Set the write bounds of a datapoint'),
  e(141, 'POST', '/v2/datapoint/setpoint', 'Project', 'Write a setpoint to a writable datapoint through the edge device'),
  e(142, 'GET', '/v2/datapoint/setpoint/{reference}', 'Project', 'Read an acknowledged setpoint operation with its log'),
  e(143, 'GET', '/v2/datapoint/setpoints', 'Project', 'The setpoint requests of a datapoint (audit), newest first'),
  // Controls apps (spec 2 "Controls apps", issue 31): block 170-189. Routes under /v2/controls
  // take the project as the query parameter project_id. DELETE takes the app's id in the query
  // (the spec's example) or in the path (its parameter table): two numbers, one operation.
  e(170, 'POST', '/v2/controls/app', 'Project', 'Create a controls app (algorithm schedule) on a mapped component; the body is its configuration'),
  e(171, 'GET', '/v2/controls/apps', 'Project', 'The controls apps of the project: filters, search, pages'),
  e(172, 'GET', '/v2/controls/app/{controls_app_id}', 'Project', 'Read a controls app with its status and deployment'),
  e(173, 'GET', '/v2/controls/app/{controls_app_id}/logs', 'Project', 'The log of a controls app (status changes, what the edge wrote), newest first, in pages'),
  e(174, 'POST', '/v2/controls/app/{controls_app_id}/run', 'Project', 'Run (run=true) or stop (run=false) a controls app on the edge agent'),
  e(175, 'POST', '/v2/controls/apps/run', 'Project', 'Run or stop several controls apps at once; the outcome per app'),
  e(176, 'DELETE', '/v2/controls/app', 'Project', 'Delete a controls app that is not running (controls_app_id in the query)'),
  e(177, 'DELETE', '/v2/controls/app/{controls_app_id}', 'Project', 'Delete a controls app that is not running (id in the path; as 176)'),
  e(178, 'PUT', '/v2/project/{project_id}/holidays', 'Project', 'Replace the holiday calendar of the project (re-deploys its controls apps)'),
  e(179, 'GET', '/v2/project/{project_id}/holidays', 'Project', 'The holiday calendar of the project as stored'),
  e(180, 'GET', '/v2/project/{project_id}/componentinproject/{componentinproject_id}/schedules', 'Project', 'The switching times of the schedule apps of a mapped component in a range, resolved in the project time zone'),
  e(181, 'GET', '/v2/project/{project_id}/componentinproject/{componentinproject_id}/holidays', 'Project', 'The holidays of the project calendar in a range, as dates'),
  // Live subscriptions, favorites and plot views (issue 33): block 190-199.
  e(190, 'GET', '/v2/live', 'Project', 'WebSocket: new observations of datapoints (and alert events) of projects, once durable (docs/live.md)'),
  // People working with alerts (issue 34 item 3): block 200-209, routes like 102/103.
  e(200, 'POST', '/v2/alert/{alert_id}/acknowledge', 'Project', 'Acknowledge a raised alert (who, when, comment): no further raise is notified until it resets'),
  e(201, 'POST', '/v2/alert/{alert_id}/clear', 'Project', 'Clear a raised alert by hand: back to Normal, notified; a condition that still holds raises anew'),
  // Export of observations (issue 34 item 1): block 210-219.
  e(210, 'POST', '/v2/project/{project_id}/export', 'Project', 'Start an export of datapoints over a time range to a CSV or Parquet file of the project space (202, a job)'),
  e(211, 'GET', '/v2/project/{project_id}/export/{export_id}', 'Project', 'An export job: state, progress (rows done of the estimate), its file'),
  e(212, 'GET', '/v2/project/{project_id}/exports', 'Project', 'The export jobs of the project, newest first'),
  // Data lifecycle (issue 34 item 2): block 220-229. Like 52, the datapoint routes take the
  // project and the datapoint as query parameters; retention is set by the company.
  e(220, 'DELETE', '/v2/datapoint/timeseries', 'Project', 'Delete the observations of a datapoint in [start, end) (TagAuth write); recorded with who and when'),
  e(221, 'GET', '/v2/project/{project_id}/deletions', 'Project', 'The recorded deletions of observations and datapoints of the project, newest first, in pages'),
  e(222, 'DELETE', '/v2/datapoint', 'Project', 'Delete a datapoint with its observations, alerts and favorites (TagAuth write); 409 while virtual datapoints or controls apps use it'),
  e(223, 'GET', '/v2/company/project/{project_id}/retention', 'Company', 'How long the project keeps raw observations and each rollup level'),
  e(224, 'PUT', '/v2/company/project/{project_id}/retention', 'Company', 'Set how long the project keeps raw observations and each rollup level (at least one minute; null keeps everything)'),
  e(191, 'GET', '/v2/project/{project_id}/favorites', 'Project', 'The caller\'s favorite datapoints in the project'),
  e(192, 'POST', '/v2/project/{project_id}/favorite', 'Project', 'Add a datapoint to the caller\'s favorites'),
  e(193, 'DELETE', '/v2/project/{project_id}/favorite', 'Project', 'Remove a datapoint from the caller\'s favorites'),
  e(194, 'GET', '/v2/project/{project_id}/plotviews', 'Project', 'The caller\'s saved plot views in the project'),
  e(195, 'POST', '/v2/project/{project_id}/plotview', 'Project', 'Save a plot view: datapoints with units, a fixed or relative range, sampling, aggregate'),
  e(196, 'GET', '/v2/project/{project_id}/plotview/{plotview_id}', 'Project', 'Read one of the caller\'s plot views'),
  e(197, 'PUT', '/v2/project/{project_id}/plotview/{plotview_id}', 'Project', 'Change one of the caller\'s plot views'),
  e(198, 'DELETE', '/v2/project/{project_id}/plotview/{plotview_id}', 'Project', 'Delete one of the caller\'s plot views'),
  // Project Haystack 4 HTTP API (issue 35; docs/haystack.md): block 230-249, one number per op so
  // roles grant ops one by one. Each op answers POST (a Zinc or JSON grid) and, for ops without
  // side effects, GET (query parameters); the registry names POST, the form every op has.
  e(230, 'POST', '/haystack/{project_id}/about', 'Project', 'Haystack about: summary information for the server'),
  e(231, 'POST', '/haystack/{project_id}/ops', 'Project', 'Haystack ops: the operations this server supports'),
  e(232, 'POST', '/haystack/{project_id}/formats', 'Project', 'Haystack formats: the grid formats this server reads and writes'),
  e(233, 'POST', '/haystack/{project_id}/close', 'Project', 'Haystack close: end the session (no server state to free)'),
  e(234, 'POST', '/haystack/{project_id}/read', 'Project', 'Haystack read: the site, equip and point records by filter or by ids'),
  e(235, 'POST', '/haystack/{project_id}/nav', 'Project', 'Haystack nav: the site, its equips and their points'),
  e(236, 'POST', '/haystack/{project_id}/hisRead', 'Project', 'Haystack hisRead: the history of a point in a range'),
  e(237, 'POST', '/haystack/{project_id}/hisWrite', 'Project', 'Haystack hisWrite: store observations of a point'),
  e(238, 'POST', '/haystack/{project_id}/pointWrite', 'Project', 'Haystack pointWrite: read the priority array of a point, or write a level (a setpoint)'),
  e(239, 'POST', '/haystack/{project_id}/watchSub', 'Project', 'Haystack watchSub: open or extend a watch of points'),
  e(240, 'POST', '/haystack/{project_id}/watchPoll', 'Project', 'Haystack watchPoll: the changes of a watch'),
  e(241, 'POST', '/haystack/{project_id}/watchUnsub', 'Project', 'Haystack watchUnsub: remove points from a watch, or close it'),
]

const byNumber = new Map(endpoints.map((x) => [x.number, x]))

export function endpoint(number: number): Endpoint {
  const found = byNumber.get(number)
  if (!found) throw new Error(`Endpoint ${number} is not in the registry`)
  return found
}

export function isKnownEndpoint(number: number): boolean {
  return byNumber.has(number)
}

/** All endpoints an `admin` role of the scope holds (rule 6). */
export function adminEndpoints(scope: Scope): number[] {
  return endpoints
    .filter((x) => x.scope === 'Project' || (scope === 'company' && x.scope === 'Company'))
    .map((x) => x.number)
}

/** Fastify's path syntax for a registry path: {id} → :id. */
export const fastifyPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1')

export const deniedText = (x: Endpoint): string => `Unauthorized access to endpoint: ${x.number} - ${x.method} ${x.path}`

/** Method, URL and config of the route implementing endpoint `no`: the registry is the one source. */
export function at(no: number): { method: Method; url: string; config: { endpoint: number } } {
  const x = endpoint(no)
  return { method: x.method, url: fastifyPath(x.path), config: { endpoint: no } }
}
