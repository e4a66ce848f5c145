#!/bin/bash
# compact: technique, then for each protocol/half the R@k overall
awk '/^techniques:/{if(line)print line; line=sprintf("%-40s", $2)} /^(default|paper)/{split($NF,a,":"); line=line" "substr($1,1,1)$2"="a[2]} END{print line}' "$1"
