# bench/ab.awk: AB lines (bench/ab.sh) -> per mount, build and program, the median ns per run over
# the rounds, and per build the sum of the medians over the RPC path (the file-write program apart)
function median(s,   n, a, i, j, t) {
	n = split(s, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
$1 == "AB-CLOCK" { print "clocksource:", $3 }
$1 == "AB" {
	key = $3 " " $4 " " $6
	v[key] = v[key] " " ($8 / $7)
	rpr[key] = $7 / $9
	if (!(key in seen)) { seen[key] = 1; order[++n] = key }
}
END {
	for (i = 1; i <= n; i++) {
		split(order[i], f, " ")
		med = median(v[order[i]])
		printf "%-10s %-4s %-28s %8.0f ns/run %5.2f runs/RPC\n", f[1], f[2], f[3], med, rpr[order[i]]
		if (f[3] !~ /nfs_fil/) tot[f[1] " " f[2]] += med * rpr[order[i]]
	}
	for (k in tot) printf "per RPC %-16s %8.0f ns\n", k, tot[k]
}
