#!/usr/bin/env python3
"""Writes metrics/model/builtin_models_data.inc from Netflix's published VMAF
model files (libvmaf's model/*.json, BSD+Patent), as C++ constants in
vmafexact's own form.

    gen_builtin_models.py LIBVMAF_MODEL_DIR > metrics/model/builtin_models_data.inc

A support vector is its coefficient, a bit mask of the feature indices its
libsvm line lists (bit i for index i + 1; libsvm leaves zeros out, and which
entries are present changes the kernel's order of additions) and up to six
values. Feature options keep the model file's text (numbers are normalised by
the same function the JSON loader uses).
Every number is written as a hexadecimal floating literal, so the C++ constant
is the exact double that Python's correctly rounded float() gives for the
published decimal text -- the same double libvmaf gets from strtod (JSON
numbers) and from its stream reader (libsvm text). The unit test
Model.BuiltinsEqualTheirJsonFiles (given the model directory) and the project's
prediction conformance test check this.
"""
import json
import sys

MODELS = [
    # (built-in name, file under the model folder, C++ identifier)
    ("vmaf_v0.6.1", "vmaf_v0.6.1.json", "kVmafV061"),
    ("vmaf_v0.6.1neg", "vmaf_v0.6.1neg.json", "kVmafV061Neg"),
    ("vmaf_4k_v0.6.1", "vmaf_4k_v0.6.1.json", "kVmaf4kV061"),
    ("vmaf_4k_v0.6.1neg", "vmaf_4k_v0.6.1neg.json", "kVmaf4kV061Neg"),
    # libvmaf builds these in with its float extractors (enable_float).
    ("vmaf_float_v0.6.1", "vmaf_float_v0.6.1.json", "kVmafFloatV061"),
    ("vmaf_float_v0.6.1neg", "vmaf_float_v0.6.1neg.json", "kVmafFloatV061Neg"),
    ("vmaf_float_4k_v0.6.1", "vmaf_float_4k_v0.6.1.json", "kVmafFloat4kV061"),
    ("vmaf_v1.0.16_3d0h", "vmaf_v1.0.16/vmaf_v1.0.16_3d0h.json", "kVmafV1016x3d0h"),
    ("vmaf_v1.0.16_5d0h", "vmaf_v1.0.16/vmaf_v1.0.16_5d0h.json", "kVmafV1016x5d0h"),
    ("vmaf_v1.0.16_3d0h_2160", "vmaf_v1.0.16/vmaf_v1.0.16_3d0h_2160.json", "kVmafV1016x3d0h2160"),
    ("vmaf_v1.0.16_1d5h_2160", "vmaf_v1.0.16/vmaf_v1.0.16_1d5h_2160.json", "kVmafV1016x1d5h2160"),
    ("vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_3d0h.json", "kVmafV1016Hfr3d0h"),
    ("vmaf_v1.0.16_hfr_5d0h", "vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_5d0h.json", "kVmafV1016Hfr5d0h"),
    ("vmaf_v1.0.16_hfr_3d0h_2160", "vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_3d0h_2160.json",
     "kVmafV1016Hfr3d0h2160"),
    ("vmaf_v1.0.16_hfr_1d5h_2160", "vmaf_v1.0.16_hfr/vmaf_v1.0.16_hfr_1d5h_2160.json",
     "kVmafV1016Hfr1d5h2160"),
]
COLLECTIONS = [
    # (built-in name, file under the model folder, C++ identifier): bootstrap
    # model collections, top-level models "0", "1", ...
    ("vmaf_b_v0.6.3", "vmaf_b_v0.6.3.json", "kVmafBV063"),
    ("vmaf_float_b_v0.6.3", "vmaf_float_b_v0.6.3.json", "kVmafFloatBV063"),
]
MAX_FEATURES = 6  # BuiltinSupportVector's value slots (builtin_models.cpp)


def hexf(value):
    return float(value).hex()


def cstr(text):
    assert '"' not in text and "\\" not in text, text
    return f'"{text}"'


def parse_libsvm(text, features):
    header, _, body = text.partition("\nSV\n")
    words = header.split()
    fields = dict(zip(words[0::2], words[1::2]))
    assert fields["svm_type"] == "nu_svr" and fields["kernel_type"] == "rbf", fields
    assert fields["nr_class"] == "2", fields
    lines = [line for line in body.split("\n") if line.strip()]
    assert len(lines) == int(fields["total_sv"])
    svs = []
    for line in lines:
        parts = line.split()
        coef = float(parts[0])
        # libsvm leaves zero entries out; keep which indices are present.
        entries = {int(i): float(v) for i, v in (p.split(":") for p in parts[1:])}
        indices = [int(p.split(":")[0]) for p in parts[1:]]
        assert indices == sorted(set(indices)) and set(indices) <= set(range(1, features + 1))
        mask = sum(1 << (i - 1) for i in indices)
        svs.append((coef, mask, [entries.get(i, 0.0) for i in range(1, MAX_FEATURES + 1)]))
    return float(fields["gamma"]), float(fields["rho"]), svs


def option_entry(key, value):
    """An option as the model file gives it: a number keeps its JSON text (the
    loader normalises it as libvmaf does, strtof then %g), a boolean or a string
    its libvmaf dictionary text."""
    if isinstance(value, bool):
        return f"{{{cstr(key)}, {cstr('true' if value else 'false')}, false}}"
    if isinstance(value, JsonNumber):
        return f"{{{cstr(key)}, {cstr(value.text)}, true}}"
    assert isinstance(value, str), (key, value)
    return f"{{{cstr(key)}, {cstr(value)}, false}}"


class JsonNumber:
    """A JSON number with its text, as the file spells it."""

    def __init__(self, text):
        self.text = text

    def __float__(self):
        return float(self.text)


def read_json(path):
    with open(path) as f:
        return json.load(f, parse_float=JsonNumber, parse_int=JsonNumber)


def emit(version, model, ident, out):
    assert model["model_type"] in ("LIBSVMNUSVR", "BOOTSTRAP_LIBSVMNUSVR",
                                   "RESIDUEBOOTSTRAP_LIBSVMNUSVR") \
        and model["norm_type"] == "linear_rescale"
    known = {"model_type", "norm_type", "feature_names", "feature_opts_dicts", "slopes",
             "intercepts", "score_clip", "score_transform", "model", "feature_dict",
             "chroma_correction_parameter"}
    assert set(model) <= known, set(model) - known
    names = model["feature_names"]
    n = len(names)
    assert n <= MAX_FEATURES
    assert len(model["slopes"]) == len(model["intercepts"]) == n + 1
    opts = model.get("feature_opts_dicts", [{}] * n)
    assert len(opts) == n
    clip = model["score_clip"]
    transform = model.get("score_transform")
    if transform is not None:
        assert set(transform) <= {"p0", "p1", "p2", "out_gte_in", "enabled"}, transform
        assert {"p0", "p1", "p2"} <= set(transform), transform
    chroma = model.get("chroma_correction_parameter")
    gamma, rho, svs = parse_libsvm(model["model"], n)

    out.write(f"// {version}: {len(svs)} support vectors of {n} features.\n")
    for i, o in enumerate(opts):
        if o:
            entries = ", ".join(option_entry(k, v) for k, v in o.items())
            out.write(f"constexpr BuiltinOption {ident}Options{i}[] = {{{entries}}};\n")
    out.write(f"constexpr BuiltinFeature {ident}Features[] = {{\n")
    for i, (name, o) in enumerate(zip(names, opts)):
        out.write(f"    {{{cstr(name)}, {f'{ident}Options{i}' if o else '{}'}}},\n")
    out.write("};\n")
    out.write(f"constexpr double {ident}Slopes[] = {{{', '.join(hexf(v) for v in model['slopes'])}}};\n")
    out.write(f"constexpr double {ident}Intercepts[] = "
              f"{{{', '.join(hexf(v) for v in model['intercepts'])}}};\n")
    out.write(f"constexpr BuiltinSupportVector {ident}Svs[] = {{\n")
    for coef, mask, values in svs:
        out.write(f"    {{{hexf(coef)}, 0x{mask:02x}, {{{', '.join(hexf(v) for v in values)}}}}},\n")
    out.write("};\n")
    out.write(f"constexpr BuiltinModel {ident} = {{\n")
    out.write(f"    {cstr(version)}, {ident}Features, {ident}Slopes, {ident}Intercepts,\n")
    out.write(f"    {hexf(clip[0])}, {hexf(clip[1])},\n")
    if transform is None:
        out.write("    {false, false, 0x0p+0, 0x0p+0, 0x0p+0, false},\n")
    else:
        enabled = transform.get("enabled", False) is True
        out.write(f"    {{true, {str(enabled).lower()}, {hexf(transform['p0'])}, {hexf(transform['p1'])}, "
                  f"{hexf(transform['p2'])}, {str(transform.get('out_gte_in') == 'true').lower()}}},\n")
    if chroma is None:
        out.write("    {false, 0x0p+0},\n")
    else:
        out.write(f"    {{true, {hexf(chroma)}}},\n")
    out.write(f"    {hexf(gamma)}, {hexf(rho)},\n    {ident}Svs,\n}};\n\n")


def main():
    model_dir = sys.argv[1]
    out = sys.stdout
    out.write("// Generated by metrics/model/gen_builtin_models.py from Netflix's published\n"
              "// VMAF models (libvmaf model/*.json at f85a8536, BSD+Patent); do not edit.\n"
              "// Included by builtin_models.cpp.\n\n")
    for version, name, ident in MODELS:
        emit(version, read_json(f"{model_dir}/{name}")["model_dict"], ident, out)
    for version, name, ident in COLLECTIONS:
        collection = read_json(f"{model_dir}/{name}")
        count = 0
        while str(count) in collection:
            # Model 0 carries the collection's name; model i its "%s_%04d".
            member = version if count == 0 else f"{version}_{count:04d}"
            emit(member, collection[str(count)]["model_dict"], f"{ident}M{count}", out)
            count += 1
        assert count >= 2 and set(collection) == {str(i) for i in range(count)}, set(collection)
        out.write(f"// {version}: a bootstrap collection of {count} models.\n")
        out.write(f"constexpr const BuiltinModel* {ident}Models[] = {{\n")
        out.write("".join(f"    &{ident}M{i},\n" for i in range(count)))
        out.write("};\n\n")


if __name__ == "__main__":
    main()
