#!/usr/bin/env python3
"""Every module a target imports is one of its own declared dependencies.

SwiftPM's `--explicit-target-dependency-import-check` accepts a module that arrives through
another dependency, so a target can compile while importing something Package.swift never gave
it. This check compares `swift package dump-package` with the sources' `import` lines: each
imported module must be a target named in the target's dependencies, or a module of a product
named there (the products' modules are read from the dependencies' own manifests in
.build/checkouts), or a module of the toolchain.

Usage: scripts/check-imports.py   (from the package root, after `swift build` resolved the packages)
Exit status 1 and one line per undeclared import when any is found.
"""

import json
import os
import re
import subprocess
import sys

# Modules of the toolchain and the system, never declared in Package.swift.
TOOLCHAIN = {
    "Foundation", "FoundationEssentials", "FoundationInternationalization", "FoundationNetworking",
    "FoundationXML", "Dispatch", "Glibc", "Musl", "Darwin", "Synchronization", "_Concurrency",
    "Swift", "Testing", "XCTest", "RegexBuilder", "CoreFoundation", "Observation", "_StringProcessing",
}

IMPORT = re.compile(
    r"^\s*(?:@[\w()]+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
)


def dump(folder):
    output = subprocess.run(
        ["swift", "package", "dump-package"], cwd=folder, check=True, capture_output=True, text=True
    ).stdout
    return json.loads(output)


def product_modules(checkouts):
    """(package identity, product name) -> the modules that product brings."""
    modules = {}
    for name in sorted(os.listdir(checkouts)):
        folder = os.path.join(checkouts, name)
        if not os.path.isfile(os.path.join(folder, "Package.swift")):
            continue
        manifest = dump(folder)
        for product in manifest.get("products", []):
            modules[(name.lower(), product["name"])] = set(product["targets"])
    return modules


def target_folder(target):
    if target.get("path"):
        return target["path"]
    base = "Tests" if target["type"] == "test" else "Sources"
    return os.path.join(base, target["name"])


def package_identity(dependency):
    """The checkout folder's name for a dependency of the root manifest."""
    for kind in ("sourceControl", "fileSystem", "registry"):
        for entry in dependency.get(kind, []):
            if "identity" in entry:
                return entry["identity"]
    return None


def main():
    root = dump(".")
    checkouts = os.path.join(".build", "checkouts")
    if not os.path.isdir(checkouts):
        sys.exit("check-imports: .build/checkouts is missing; run `swift build` first")
    products = product_modules(checkouts)
    # `package:` in a product dependency is the package's name, which is the identity here.
    identities = {package_identity(d) for d in root["dependencies"]}
    targets = {t["name"]: t for t in root["targets"]}
    problems = []
    for target in root["targets"]:
        if target["type"] in ("system", "binary", "plugin", "macro"):
            continue
        allowed = set(TOOLCHAIN) | {target["name"]}
        for dependency in target["dependencies"]:
            if "byName" in dependency:
                allowed.add(dependency["byName"][0])
            elif "target" in dependency:
                allowed.add(dependency["target"][0])
            elif "product" in dependency:
                name, package = dependency["product"][0], dependency["product"][1]
                package = (package or name).lower()
                if package not in identities:
                    problems.append(f"{target['name']}: product {name} of unknown package {package}")
                modules = products.get((package, name))
                if modules is None:
                    problems.append(f"{target['name']}: no product {name} in package {package}")
                else:
                    allowed |= modules
        folder = target_folder(target)
        excluded = [os.path.join(folder, e) for e in target.get("exclude", [])]
        for directory, _, files in os.walk(folder):
            if any(directory == e or directory.startswith(e + os.sep) for e in excluded):
                continue
            for file in sorted(files):
                if not file.endswith(".swift"):
                    continue
                path = os.path.join(directory, file)
                if path in excluded:
                    continue
                with open(path, encoding="utf-8") as source:
                    in_string = False  # inside a multi-line string literal (a script's text, say)
                    for number, line in enumerate(source, 1):
                        if line.count('"""') % 2 == 1:
                            in_string = not in_string
                            continue
                        match = None if in_string else IMPORT.match(line)
                        if match and match.group(1) not in allowed:
                            module = match.group(1)
                            kind = "target" if module in targets else "module"
                            problems.append(
                                f"{path}:{number}: {target['name']} imports {kind} {module}, "
                                "which is not one of its declared dependencies"
                            )
    for problem in problems:
        print(problem)
    if problems:
        print(f"check-imports: {len(problems)} undeclared import(s); declare each in Package.swift")
        sys.exit(1)
    print(f"check-imports: every import of {len(root['targets'])} targets is declared")


if __name__ == "__main__":
    main()
