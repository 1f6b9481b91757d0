package cli

// The completion scripts. Each sends the words up to the cursor to
// `workq-tui __complete` (completion.go describes the answer), offers the
// candidates, and completes file names when the answer ends in ":files".
// Its standard error goes to /dev/null, so nothing but candidates reaches
// the terminal.

func completionScripts() map[string]string {
	return map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}
}

// bashCompletion reads the words from COMP_LINE, not COMP_WORDS, which bash
// splits at ':' and '=' (job names hold ':'); the text before the last ':'
// or '=' of the word is then taken off each candidate, because bash
// replaces only what follows it. It needs bash 4 and nothing else (no
// bash-completion package).
const bashCompletion = `# bash completion for workq-tui: source <(workq-tui completion bash)
_workq_tui() {
    local line=${COMP_LINE:0:COMP_POINT}
    local -a words lines
    read -r -a words <<< "$line"
    if [[ ${#words[@]} -eq 0 || $line == *[[:space:]] ]]; then
        words+=("")
    fi
    local cur=${words[${#words[@]}-1]}
    local prog=${words[0]/#\~/$HOME}
    mapfile -t lines < <("$prog" __complete "${words[@]:1}" 2>/dev/null)
    local n=${#lines[@]}
    COMPREPLY=()
    (( n > 0 )) || return 0
    local directive=${lines[n-1]}
    [[ $directive == :* ]] || return 0
    unset 'lines[n-1]'
    if [[ $directive == *files* ]]; then
        local f=$cur
        [[ $f == --*=* ]] && f=${f#*=}
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -f -- "$f")
        return 0
    fi
    local breaks='' prefix='' c
    [[ $COMP_WORDBREAKS == *=* ]] && breaks+='='
    [[ $COMP_WORDBREAKS == *:* ]] && breaks+=':'
    if [[ -n $breaks && $cur == *[$breaks]* ]]; then
        prefix=${cur%"${cur##*[$breaks]}"}
    fi
    for c in "${lines[@]}"; do
        c=${c%%$'\t'*}
        COMPREPLY+=("${c#"$prefix"}")
    done
    return 0
}
complete -F _workq_tui workq-tui
`

// zshCompletion works sourced (after compinit) and as a _workq-tui file
// in $fpath.
const zshCompletion = `#compdef workq-tui
# zsh completion for workq-tui: source <(workq-tui completion zsh), after compinit
_workq_tui() {
    local -a lines cands
    local cur=${words[CURRENT]} line value desc directive
    lines=("${(@f)$(${words[1]} __complete "${(@Q)words[2,CURRENT]}" 2>/dev/null)}")
    (( ${#lines} > 0 )) || return 1
    directive=${lines[-1]}
    [[ $directive == :* ]] || return 1
    if [[ $directive == *files* ]]; then
        [[ $cur == --*=* ]] && compset -P '*='
        _files
        return
    fi
    for line in "${(@)lines[1,-2]}"; do
        [[ -n $line ]] || continue
        value=${line%%$'\t'*}
        desc=${line#*$'\t'}
        [[ $desc == $line ]] && desc=''
        value=${value//:/\\:}
        if [[ -n $desc ]]; then
            cands+=("$value:$desc")
        else
            cands+=("$value")
        fi
    done
    (( ${#cands} > 0 )) || return 1
    _describe -t values 'workq-tui' cands -Q
}
if [[ "${funcstack[1]}" == _workq_tui ]]; then
    _workq_tui "$@"
else
    compdef _workq_tui workq-tui
fi
`

// fishCompletion turns fish's own file completion off and asks the
// program for every word.
const fishCompletion = `# fish completion for workq-tui: workq-tui completion fish > ~/.config/fish/completions/workq-tui.fish
function __workq_tui_complete
    set -l words (commandline -opc)
    set -l cur (commandline -ct)
    set -l lines ($words[1] __complete $words[2..-1] $cur 2>/dev/null)
    test (count $lines) -gt 0; or return
    set -l directive $lines[-1]
    string match -q ':*' -- $directive; or return
    if string match -q '*files*' -- $directive
        set -l prefix ''
        set -l f $cur
        if string match -q -- '--*=*' $cur
            set prefix (string replace -r '=.*' '=' -- $cur)
            set f (string replace -r '^[^=]*=' '' -- $cur)
        end
        for p in (__fish_complete_path $f)
            echo $prefix$p
        end
        return
    end
    for line in $lines[1..-2]
        echo $line
    end
end
complete -c workq-tui -f -a '(__workq_tui_complete)'
`
