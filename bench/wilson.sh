# Sourced by the bench scripts that count how often a verdict fell one way.
# wilson K N: "rate% [lo%, hi%]", the rate with its 95% Wilson interval.
wilson() {
    awk -v k="$1" -v n="$2" 'BEGIN { z = 1.959964; p = k / n; d = 1 + z*z/n;
        c = (p + z*z/(2*n)) / d; h = z * sqrt(p*(1-p)/n + z*z/(4*n*n)) / d;
        printf "%5.1f%% [%4.1f%%, %5.1f%%]", 100*p, 100*(c-h), 100*(c+h) }'
}
