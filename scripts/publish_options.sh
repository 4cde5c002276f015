# Sourced by train_recipe.sh and train_values.sh: reads their shared options from "$@".
# Sets publish (true/false), run_dir (empty unless given) and other_args (the rest, in order);
# -h/--help prints the calling script's header comment and exits.
publish=false
run_dir=""
other_args=()
while (($#)); do
    case "$1" in
        -h | --help) sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0"; exit 0 ;;
        --publish) publish=true ;;
        --run-dir) run_dir=${2:?--run-dir needs a directory}; shift ;;
        --run-dir=*) run_dir=${1#--run-dir=} ;;
        *) other_args+=("$1") ;;
    esac
    shift
done
