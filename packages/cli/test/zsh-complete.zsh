# Usage: zsh -f zcomplete.zsh SCRIPT-DIR LINE OUT
# Types LINE then Tab into an interactive zsh (on a pseudo-terminal, as a user would) whose fpath holds
# the completion script, and writes every candidate the completion system offered to OUT, one a line.
zmodload zsh/zpty || exit 3
local dir=$1 line=$2 out=$3
: >| $out
zpty -b z zsh -f -i
zpty -w z "PS1= PS2= RPS1=; unsetopt zle_bracketed_paste 2>/dev/null; fpath=(${(q)dir} \$fpath); autoload -Uz compinit; compinit -u -D"
zpty -w z "compadd() { local -a hits; builtin compadd -O hits \"\$@\"; (( \$#hits )) && print -rl -- \$hits >> ${(q)out}; builtin compadd \"\$@\" }"
zpty -w z "_compl_done() { print -r -- '<done>' >> ${(q)out} }; zle -N _compl_done; bindkey '^X' _compl_done; LISTMAX=100000; unsetopt autolist automenu"
zpty -w -n z "$line"$'\t\C-x'
local -i waited=0
until grep -q '^<done>$' $out 2>/dev/null; do
  (( waited++ > 1200 )) && { print -u2 "no completion after 120s"; exit 4 }
  zpty -r -t z _ 2>/dev/null
  sleep 0.1
done
zpty -d z
