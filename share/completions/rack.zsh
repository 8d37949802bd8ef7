#compdef rack

__rack_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__rack_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __rack_complete "${completions[@]:0:-1}"
    fi
}

__rack_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_rack() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'run:Join the running JACK server and serve OSC (the live rack).'
            'render:Render a file through the rack offline (no JACK server needed).'
            'presets:List factory and user presets, or show one as JSON.'
            'check:Validate an automation file; every problem is reported with its line number.'
            'send:Play an automation file live to a running rack, as OSC bundles with timetags.'
            'plot:Draw an automation file'\''s parameters over time, the filter'\''s response or the reverb'\''s decay, as SVG or PNG.'
            'demo-loop:Write the synthesised demo loop that `rack run` plays without --file.'
            'lv2-ttl:Write the LV2 plugin'\''s .ttl files (manifest, ports, factory presets) into a directory.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        run|render|presets|check|send|plot|demo-loop|lv2-ttl|help)
            "_rack_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_rack_run() {
    local -i ret=1
    local -ar arg_specs=(
        '--name[JACK client name (JACK renames it if taken; the real name is printed).]:name:'
        '--osc-port[UDP port for OSC (default 8000, or one the system chooses if 8000 is taken; 0\: the system chooses; the port is printed).]:osc-port:'
        '--osc-host[Address to bind OSC to. Anything but loopback exposes the rack to the network.]:osc-host:'
        '*--allow[Only obey OSC, HTTP and WebSocket clients from this address or CIDR range (repeatable; loopback only if listed; others are dropped without a reply).]:ADDR:'
        '--file[Audio file to play (wav, flac, ogg; resampled to the JACK rate).]:file:'
        '--preset[Preset to start with (name or number; user presets are negative).]:preset:{__rack_custom_complete ---completion run -- --preset "${current_word_index}" "$(__rack_cursor_index_in_current_word)"}'
        '--connect[Connect outputs to the physical playback ports and inputs from capture.]'
        '--record[Write the state at the start and every applied change to this automation file (rack render FILE OUT --automation IT replays the session).]:record:'
        '--no-midi[Leave out the MIDI ports (midi_in, midi_out).]'
        '--midi-channel[Obey MIDI on this channel only (1…16; omni by default).]:midi-channel:'
        '--http-port[TCP port for OSCQuery, its WebSocket and the web page at /ui/ (default 8001, or one the system chooses if 8001 is taken; 0\: the system chooses; the URL is printed).]:http-port:'
        '--http-host[Address to bind HTTP to. Anything but loopback exposes the rack to the network.]:http-host:'
        '--no-advertise[Do not advertise OSCQuery (_oscjson._tcp) and OSC (_osc._udp) over DNS-SD through Avahi (advertised by default when an Avahi daemon runs and the socket is not bound to loopback).]'
        '--no-browse[Do not browse DNS-SD for the other racks on the network (the web page'\''s "Racks in this studio"; browsed by default when an Avahi daemon runs).]'
        '*--media-dir[Senders other than 127.0.0.1 may load files from this directory only (repeatable).]:DIR:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_rack_render() {
    local -i ret=1
    local -ar ___format=('16' '24' 'float')
    local -ar ___type=('wav' 'flac' 'ogg' 'mp3')
    local -ar arg_specs=(
        ':input:'
        ':output:'
        '--preset[Start from this preset (name or number; user presets are negative).]:preset:{__rack_custom_complete ---completion render -- --preset "${current_word_index}" "$(__rack_cursor_index_in_current_word)"}'
        '*--set[Set a parameter at the start (after --preset), e.g. cutoff=800 or room=plate. Repeatable.]:PARAM=VALUE:{__rack_custom_complete ---completion render -- --set "${current_word_index}" "$(__rack_cursor_index_in_current_word)"}'
        '--automation[Automation file to play during the render.]:automation:'
        '--tail[Seconds of reverb tail added after the input ends (default\: 0).]:tail:'
        '--rate[Render sample rate in Hz (default\: the automation file'\''s rate line, else the input'\''s).]:rate:'
        '--block[Frames per render call (offline the engine renders in large blocks; the result does not depend on it).]:block:'
        '--format[Output sample format\: 16, 24 or float (default\: the input'\''s).]:format:{__rack_complete "${___format[@]}"}'
        '(-t --type)'{-t,--type}'[Container written to standard output (output -)\: wav, flac, ogg or mp3.]:type:{__rack_complete "${___type[@]}"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_rack_presets() {
    local -i ret=1
    local -ar arg_specs=(
        ':action:'
        '*:name:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_rack_check() {
    local -i ret=1
    local -ar arg_specs=(
        ':file:'
        '--length[Length of the input in seconds, to flag events and ramps past its end.]:length:'
        '--strict[Treat warnings (interrupted ramps, clamped values, events past the end) as errors.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_rack_send() {
    local -i ret=1
    local -ar arg_specs=(
        ':file:'
        '--to[Where the rack listens (HOST\:PORT).]:to:'
        '--lead[How far ahead of its time each bundle is sent, in seconds.]:lead:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_rack_plot() {
    local -i ret=1
    local -ar arg_specs=(
        ':file:'
        '(--output -o)'{--output,-o}'[Picture to write\: .svg, or .png (needs rsvg-convert).]:OUT:'
        '--response[Draw the low-pass filter'\''s magnitude response instead of a timeline.]'
        '--decay[Draw the reverb'\''s decay time per octave band instead of a timeline.]'
        '--length[Length of the input in seconds\: marks its end; flags events and ramps past it.]:length:'
        '--rate[Sample rate in Hz that events and ramps are placed on (default\: 48000).]:rate:'
        '*--preset[Timeline\: start from this preset. Response, decay\: a curve for this preset (repeatable).]:preset:{__rack_custom_complete ---completion plot -- --preset "${current_word_index}" "$(__rack_cursor_index_in_current_word)"}'
        '*--set[Set a parameter (after --preset), e.g. cutoff=800, resonance=12, room=plate. Repeatable.]:PARAM=VALUE:{__rack_custom_complete ---completion plot -- --set "${current_word_index}" "$(__rack_cursor_index_in_current_word)"}'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_rack_demo-loop() {
    local -i ret=1
    local -ar arg_specs=(
        ':path:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_rack_lv2-ttl() {
    local -i ret=1
    local -ar arg_specs=(
        ':directory:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_rack_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _rack ]]; then
    _rack "${@}"
else
    compdef _rack rack
fi
