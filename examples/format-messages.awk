# Turns `gst-launch-1.0 -m` output into one readable line per vmafexact frame
# and a short summary; errors and warnings pass through unchanged.
#
#   gst-launch-1.0 -m ... vmafexact ... 2>&1 | awk -f examples/format-messages.awk
#
# With -v keys="vmaf psnr_y" only those scores are shown (default: all).
#
# POSIX awk (Debian's mawk is enough). Scores are printed with %.6f, as libvmaf's
# vmaf tool prints them by default; for every bit, write a log with
# log-precision=max instead.

# Splits the message's fields ("name=(type)value") into name[] and value[].
function parse_fields(line,    body, parts, n, i, eq, type_end) {
  body = line
  sub(/^.*\(element\): vmafexact-[a-z]+, /, "", body)
  sub(/;[ \t\r]*$/, "", body)
  n = split(body, parts, /, /)
  for (i = 1; i <= n; i++) {
    eq = index(parts[i], "=")
    field_name[i] = substr(parts[i], 1, eq - 1)
    field_value[i] = substr(parts[i], eq + 1)
    type_end = index(field_value[i], ")")
    field_type[i] = substr(field_value[i], 2, type_end - 2)
    field_value[i] = substr(field_value[i], type_end + 1)
  }
  return n
}

# Value of key "k" in an unescaped nested structure "pooled, min=(double)1, ...".
function nested(text, key,    pos, rest) {
  pos = index(text, " " key "=(double)")
  if (pos == 0) return ""
  rest = substr(text, pos + length(key) + 10)
  sub(/[,;].*$/, "", rest)
  return rest
}

function shown(name) {
  return keys == "" || index(" " keys " ", " " name " ") > 0
}

/\(element\): vmafexact-frame, / {
  n = parse_fields($0)
  out = ""
  for (i = 1; i <= n; i++) {
    if (field_name[i] == "index") frame = field_value[i]
    if (field_type[i] != "double" || !shown(field_name[i])) continue
    out = out sprintf("  %s %.6f", field_name[i], field_value[i])
  }
  printf "frame %5d%s\n", frame, out
  next
}

/\(element\): vmafexact-summary, / {
  n = parse_fields($0)
  for (i = 1; i <= n; i++) count[field_name[i]] = field_value[i]
  printf "summary: %d frames scored, %d unpaired (reference %d, distorted %d)\n",
         count["frames-scored"], count["frames-unpaired"],
         count["frames-unpaired-ref"], count["frames-unpaired-dist"]
  for (i = 1; i <= n; i++) {
    if (field_type[i] != "structure" || !shown(field_name[i])) continue
    text = field_value[i]
    gsub(/\\/, "", text)
    printf "  %-10s min %.6f  max %.6f  mean %.6f  harmonic_mean %.6f\n", field_name[i],
           nested(text, "min"), nested(text, "max"), nested(text, "mean"),
           nested(text, "harmonic_mean")
  }
  next
}

# gst-launch's own reports of errors and warnings, with the two lines of
# details that follow "Additional debug info:" (source location, then advice).
/^(ERROR|WARNING)/ { print; details = 0; next }
/^Additional debug info:/ { print; details = 2; next }
details > 0 && !/^(Got |Setting |Execution |Freeing |Pipeline |Redistribute |New clock)/ {
  print; details--; next
}
{ details = 0 }
