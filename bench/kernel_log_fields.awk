# The one-liner a kernel developer would write to pull the documents' fields
# out of a log (the reference kvmbench ingest is measured against): the
# to_shared counts, the RMPOPT cycle stats and the sweep times, one record
# per output line. It does not join mail-wrapped records, check values,
# store anything or compute statistics; kvmbench ingest does all of that.
/guest_memfd to_shared:/ {
  for (i = 1; i <= NF; i++) {
    if ($i ~ /^nr_pages=/) np = $i
    if ($i ~ /^make_shared=/) ms = $i
    if ($i ~ /^total=/) t = $i
  }
  print np, ms, t
}
/RMPOPT (largest|smallest|average) cycles/ { print $(NF-2), $NF }
/RMPOPT execution time/ { for (i = 1; i <= NF; i++) if ($i == "time") print $(i+1) }
