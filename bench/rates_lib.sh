# Sourced by the bench scripts that judge kept runs of `run directmap
# --preset host` (ab_rates.sh, ab_power_curve.sh).

# wilson K N: "rate% [lo%, hi%]", the rate with its 95% Wilson interval.
wilson() {
    awk -v k="$1" -v n="$2" 'BEGIN { z = 1.959964; p = k / n; d = 1 + z*z/n;
        c = (p + z*z/(2*n)) / d; h = z * sqrt(p*(1-p)/n + z*z/(4*n*n)) / d;
        printf "%5.1f%% [%4.1f%%, %5.1f%%]", 100*p, 100*(c-h), 100*(c+h) }'
}

# faultin_rates RUN...: the faultin_rate samples of run directories, one
# "run variant value" line each (warm-up repetitions left out).
faultin_rates() {
    for run in "$@"; do
        awk -v run="$run" '/"metric":"faultin_rate",/ && !/"warmup":true/ {
            v = $0; sub(/.*"value":/, "", v); sub(/[,}].*/, "", v)
            w = $0; sub(/.*"variant":"/, "", w); sub(/".*/, "", w)
            print run, w, v }' "$run/samples.jsonl"
    done
}

# geomean_rate RUN...: the geometric mean of their faultin_rate samples (GB/s).
geomean_rate() {
    faultin_rates "$@" | awk '$3 > 0 { s += log($3); n++ } END { if (n) printf "%.3g", exp(s / n); else printf "-" }'
}

# invocation_spread EXPERIMENT...: how much the invocations of one experiment
# differ: the sd of their log means (each invocation the mean of the logs of
# its repetitions, per variant), pooled over experiments and variants, as a
# percentage.
invocation_spread() {
    for e in "$@"; do
        for run in "$e"/*/*/; do
            faultin_rates "${run%/}" | awk -v e="$e" -v inv="${run%/*/}" '{ print e, inv, $2, $3 }'
        done
    done | awk '$4 > 0 { k = $1 SUBSEP $2 SUBSEP $3; s[k] += log($4); n[k]++; grp[k] = $1 SUBSEP $3 }
        END { for (k in s) { m = s[k] / n[k]; g = grp[k]; gs[g] += m; gss[g] += m * m; gn[g]++ }
              for (g in gs) if (gn[g] > 1) { v += gss[g] - gs[g] * gs[g] / gn[g]; df += gn[g] - 1 }
              if (df) printf "%.1f%%", 100 * sqrt(v / df); else printf "-" }'
}

# hold_host_for_rates: remembers THP's mode ($thp, $thp_was: a planted case
# switches it) and, with PAGE_REPORTING_ORDER set, holds the guest's free
# page reporting off (so that no repetition faults in memory the hypervisor
# took back, what `run` warns of); both put back at exit.
hold_host_for_rates() {
    thp=/sys/kernel/mm/transparent_hugepage/enabled
    thp_was=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$thp" 2>/dev/null)
    reporting=/sys/module/page_reporting/parameters/page_reporting_order
    reporting_was=$(cat "$reporting" 2>/dev/null || true)
    trap 'put_host_back_after_rates' EXIT INT TERM
    if [ -n "${PAGE_REPORTING_ORDER:-}" ]; then echo "$PAGE_REPORTING_ORDER" > "$reporting" || exit 2; fi
}
put_host_back_after_rates() {
    [ -n "$thp_was" ] && echo "$thp_was" > "$thp" 2>/dev/null
    [ -n "${PAGE_REPORTING_ORDER:-}" ] && [ -n "$reporting_was" ] && echo "$reporting_was" > "$reporting"
}
