"""The test-only leaves-evaluated kind, a package as a plugin's kind is: its module (`kind.py`,
which registers the kind when imported), its page module and styles, its tests. Importing the
package registers nothing, so collecting its tests leaves the registry as the run found it."""
