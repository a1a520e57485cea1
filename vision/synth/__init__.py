"""Synthetic table frames with ground truth (see ``vision.synth.scene``)."""

from vision.synth.random_scene import random_scene
from vision.synth.scene import (
    SKID_FACES, CarSpec, DieSpec, HandSpec, SceneSpec, TemplateSpec, default_template_tag, render_scene,
)

__all__ = ["render_scene", "random_scene", "SceneSpec", "CarSpec", "TemplateSpec", "DieSpec", "HandSpec",
           "SKID_FACES", "default_template_tag"]
