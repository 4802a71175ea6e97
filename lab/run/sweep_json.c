/* The table of a sweep or a repeat as JSON (steerlab sweep --json, run
 * --repeat N --json); see run.h and docs/analysis.md, "JSON output". */
#include "run.h"

#include <jansson.h>
#include <math.h>

/* sweep_json_s: a time in seconds, null when unknown (NAN) */
static json_t *sweep_json_num(double v)
{
	return isnan(v) ? json_null() : json_real(v);
}

static json_t *sweep_json_count(int64_t v)
{
	return v < 0 ? json_null() : json_integer(v);
}

/* sweep_json_scheme: point i's clocks of scheme s */
static json_t *sweep_json_scheme(const struct sweep_table *tb, int i, int s)
{
	const struct sweep_clocks *c = &tb->clocks[i][s];

	if (!c->present)
		return json_null();
	return json_pack(
	    "{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:o}", "detect_s",
	    sweep_json_num(c->detect), "remote_dead_s", sweep_json_num(c->remote_dead), "steer_s",
	    sweep_json_num(c->steer), "window_s", sweep_json_num(c->window), "last_p50_s",
	    sweep_json_num(c->p50), "last_p99_s", sweep_json_num(c->p99), "last_max_s",
	    sweep_json_num(c->max), "window_lower_bound",
	    isnan(c->window) ? json_null() : json_boolean(c->lb_window), "last_max_lower_bound",
	    c->lb_max, "lost_client", sweep_json_count(c->lost_client), "lost_capture",
	    sweep_json_count(c->lost_capture), "upstream_queries", sweep_json_count(c->upstream),
	    "deviation", sweep_json_num(c->deviation));
}

static json_t *sweep_json_point(const struct sweep *sw, const struct sweep_table *tb, int i)
{
	json_t *schemes = json_object(), *p;

	for (int s = 0; schemes && s < tb->nschemes; s++)
		json_object_set_new(schemes, tb->schemes[s],
				    tb->done[i] ? sweep_json_scheme(tb, i, s) : json_null());
	p = json_pack("{s:s, s:s, s:b, s:o, s:o, s:o}", "value", sw->values[i], "run", sw->names[i],
		      "done", tb->done[i], "valid",
		      tb->done[i] && tb->valid[i] >= 0 ? json_boolean(tb->valid[i]) : json_null(),
		      "invalid_codes", json_string(tb->done[i] ? tb->invalid[i] : ""), "schemes",
		      schemes);
	if (p && sw->repeat)
		json_object_set_new(p, "jitter_offset_s",
				    tb->done[i] ? sweep_json_num(tb->offset[i]) : json_null());
	return p;
}

json_t *sweep_table_json(const struct sweep *sw, const struct sweep_table *tb, const char *dir)
{
	json_t *points = json_array(), *schemes = json_array();

	for (int s = 0; schemes && s < tb->nschemes; s++)
		json_array_append_new(schemes, json_string(tb->schemes[s]));
	for (int i = 0; points && i < sw->nvalues; i++)
		json_array_append_new(points, sweep_json_point(sw, tb, i));
	return json_pack("{s:i, s:s, s:s, s:s, s:s, s:b, s:o, s:o}", "version", SWEEP_JSON_VERSION,
			 "kind", sw->repeat ? "repeat" : "sweep", "lab", tb->lab, "topology",
			 sw->file, "dir", dir, "steady", tb->steady, "schemes", schemes, "points",
			 points);
}

json_t *sweep_check_json(const struct sweep *sw)
{
	json_t *points = json_array();

	for (int i = 0; points && i < sw->nvalues; i++)
		json_array_append_new(
		    points, json_pack("{s:s, s:s}", "value", sw->values[i], "run", sw->names[i]));
	return json_pack("{s:i, s:s, s:s, s:s, s:b, s:o}", "version", SWEEP_JSON_VERSION, "kind",
			 sw->repeat ? "repeat" : "sweep", "topology", sw->file, "key", sw->key,
			 "checked", 1, "points", points);
}
