# bash completion for slotscope (installed as /usr/share/bash-completion/completions/slotscope).
# The options come from `slotscope --help` itself, so they cannot drift from the binary.
_slotscope() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} i
	# after "--": the command's own completion
	for ((i = 1; i < COMP_CWORD; i++)); do
		if [[ ${COMP_WORDS[i]} == -- ]]; then
			if declare -F _command_offset >/dev/null; then
				_command_offset $((i + 1))
			else
				mapfile -t COMPREPLY < <(compgen -c -- "$cur")
			fi
			return
		fi
	done
	case $prev in
	--prom-file | --folded | --svg | --btf | --web-config)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
		return ;;
	--procfs-root | --sysfs-root)
		mapfile -t COMPREPLY < <(compgen -d -- "$cur")
		return ;;
	-m | --mount)
		# the NFS mount points, from the mount table
		mapfile -t COMPREPLY < <(compgen -W "$(awk '$3 ~ /^nfs/ { print $2 }' /proc/mounts 2>/dev/null)" -- "$cur")
		return ;;
	--user)
		mapfile -t COMPREPLY < <(compgen -u -- "$cur")
		return ;;
	--mounts-of)
		mapfile -t COMPREPLY < <(compgen -W "1" -- "$cur")
		return ;;
	--listen)
		mapfile -t COMPREPLY < <(compgen -W ":9868 127.0.0.1:9868" -- "$cur")
		return ;;
	-d | --duration | --ckpt-threshold | --restore-threshold | --ckpt-quiet | --max-inflight | \
		--prom-max-series | --prom-mount-include | --prom-mount-exclude)
		return ;;
	esac
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$("${COMP_WORDS[0]}" --help 2>/dev/null |
			grep -oE '(^|[ ,])--?[a-z][a-z-]*' | tr -d ' ,' | sort -u) --" -- "$cur")
	fi
}
complete -F _slotscope slotscope
