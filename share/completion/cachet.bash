# bash completion for cachet. The commands and their options are read from
# cachet's own --help texts when completing, so they never drift from it.
_cachet()
{
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion || return
    else
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=${COMP_WORDS[COMP_CWORD-1]}
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi
    local cachet=${words[0]}
    if [ "$cword" -eq 1 ]; then
        local cmds
        cmds=$("$cachet" --help 2>/dev/null | sed -n '/^commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p')
        COMPREPLY=($(compgen -W "$cmds help version --help --version" -- "$cur"))
        return
    fi
    case $prev in
        -c|--config|--json|--csv|--events|-o|--output)
            COMPREPLY=($(compgen -f -- "$cur"))
            return ;;
    esac
    if [[ $cur == -* ]]; then
        local opts
        opts=$("$cachet" "${words[1]}" --help 2>/dev/null | grep -oE -- '(^|[ [,])--?[a-zA-Z][a-zA-Z0-9-]*' |
               sed 's/^[ [,]*//' | sort -u)
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -F _cachet cachet
